package org.mpirunft.common;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The one duration grammar of mpirun-ft, for options, config files and rank settings alike: a
 * whole number with a unit ({@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}, {@code 7d}) or
 * ISO-8601 ({@code PT30S}, {@code P7D}). Units and the ISO letters are case-insensitive. Days are
 * there for an MTBF, which operators think of in days.
 */
public final class Durations {
    private static final String FORMS = "a duration such as 30s, 10m, 1h, 500ms or PT30S";

    private Durations() {
    }

    /** A duration, or a {@link BadValueException} naming {@code setting}. */
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
                case 'd' -> Duration.ofDays(amount);
                default -> throw new NumberFormatException(v);
            };
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new BadValueException(setting, "must be " + FORMS + ", got '" + value + "'");
        }
    }

    /** A duration greater than zero, or a {@link BadValueException} naming {@code setting}. */
    public static Duration parsePositive(String setting, String value) {
        Duration duration = parse(setting, value);
        if (duration.isZero() || duration.isNegative()) {
            throw new BadValueException(setting, "must be greater than 0, got '" + value + "'");
        }
        return duration;
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
