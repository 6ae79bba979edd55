package org.mpirunft.membership.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Reads "500ms", "2s", "1m" or ISO-8601 ("PT2S"). */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m)");

    @Override
    public Duration convert(String value) {
        Matcher m = SIMPLE.matcher(value.trim());
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                default -> Duration.ofMinutes(amount);
            };
        }
        try {
            return Duration.parse(value.trim());
        } catch (RuntimeException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (examples: 500ms, 2s, PT2S)");
        }
    }
}
