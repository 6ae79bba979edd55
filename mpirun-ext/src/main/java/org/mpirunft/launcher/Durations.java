package org.mpirunft.launcher;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Durations as users write them: a whole number with a unit ({@code 500ms}, {@code 30s},
 * {@code 10m}, {@code 1h}) or ISO-8601 ({@code PT30S}), the forms the rank library accepts too.
 */
public final class Durations {
    private Durations() {
    }

    /** A duration greater than zero, or a {@link BadSettingException} naming {@code setting}. */
    public static Duration parsePositive(String setting, String value) {
        Duration duration = parse(setting, value);
        if (duration.isZero() || duration.isNegative()) {
            throw new BadSettingException(setting, "must be greater than 0, got '" + value + "'");
        }
        return duration;
    }

    public static Duration parse(String setting, String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("p")) {
                return Duration.parse(v.toUpperCase(Locale.ROOT));
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.length() < 2) {
                throw new NumberFormatException(v);
            }
            long amount = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                default -> throw new NumberFormatException(v);
            };
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new BadSettingException(setting, "must be a duration such as 30s, 10m, 1h, 500ms or PT30S, got '" + value + "'");
        }
    }

    /** The short form {@link #parse} reads back: {@code 1500ms}, {@code 30s}, {@code 10m}, {@code 2h}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 3_600_000 == 0 && millis != 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0 && millis != 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
