package org.mpirunft.common;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * A job's checkpoint interval, registered with the job so that the scheduler alone orders its
 * checkpoints: every N iterations ({@code every 10}, a standing order the ranks carry out at
 * iterations that are multiples of N), a fixed time ({@code 2s}, {@code 10m}), or {@code auto}
 * (Daly's interval from the measured checkpoint cost and the configured MTBF). Written as text
 * in options, config files and messages.
 */
public record CheckpointSchedule(int everyIterations, Optional<Duration> interval) {
    public static final CheckpointSchedule AUTO = new CheckpointSchedule(0, Optional.empty());

    public CheckpointSchedule {
        if (everyIterations < 0 || everyIterations > 0 && interval.isPresent()) {
            throw new IllegalArgumentException("a checkpoint schedule is every N > 0 iterations, a duration, or auto");
        }
        interval.ifPresent(i -> {
            if (i.isZero() || i.isNegative()) {
                throw new IllegalArgumentException("a checkpoint interval must be > 0, got " + i);
            }
        });
    }

    public static CheckpointSchedule everyIterations(int n) {
        return new CheckpointSchedule(n, Optional.empty());
    }

    public static CheckpointSchedule every(Duration interval) {
        return new CheckpointSchedule(0, Optional.of(interval));
    }

    /** {@code auto}, {@code every N} (iterations) or a duration; a {@link BadValueException} naming {@code setting}. */
    public static CheckpointSchedule parse(String setting, String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        if (v.equals("auto")) {
            return AUTO;
        }
        if (v.startsWith("every")) {
            String count = v.substring("every".length()).strip();
            if (count.endsWith("iterations")) {
                count = count.substring(0, count.length() - "iterations".length()).strip();
            }
            try {
                int n = Integer.parseInt(count);
                if (n > 0) {
                    return everyIterations(n);
                }
            } catch (NumberFormatException e) {
                // Reported below with the accepted forms.
            }
            throw new BadValueException(setting, "must be 'every N' with N > 0 iterations, got '" + value + "'");
        }
        try {
            return every(Durations.parsePositive(setting, value));
        } catch (BadValueException e) {
            throw new BadValueException(setting, "must be 'auto', 'every N' (iterations) or a duration such as 30s, 10m, 1h, got '"
                    + value + "'");
        }
    }

    /** For Jackson: the text form. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static CheckpointSchedule fromJson(String text) {
        return parse("checkpoint schedule", text);
    }

    public boolean isAuto() {
        return everyIterations == 0 && interval.isEmpty();
    }

    /** The text {@link #parse} reads back: {@code auto}, {@code every 10}, {@code 2s}. */
    @JsonValue
    @Override
    public String toString() {
        if (everyIterations > 0) {
            return "every " + everyIterations;
        }
        return interval.map(Durations::format).orElse("auto");
    }
}
