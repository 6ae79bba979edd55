package org.mpirunft.launcher;

import java.time.Duration;
import java.util.Optional;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;

/**
 * How often the job checkpoints: every fixed {@link Duration}, which the rank library keeps by
 * itself, or {@code auto}, where the scheduler orders checkpoints at Daly's optimum from the
 * measured checkpoint cost and the cluster's failure rate.
 *
 * @param fixed the interval, empty for {@code auto}
 */
public record CheckpointInterval(Optional<Duration> fixed) {
    public static final String AUTO = "auto";

    public CheckpointInterval {
        fixed.ifPresent(d -> {
            if (d.isZero() || d.isNegative()) {
                throw new BadSettingException("--checkpoint-interval", "must be greater than 0, got " + d);
            }
        });
    }

    public static CheckpointInterval auto() {
        return new CheckpointInterval(Optional.empty());
    }

    public static CheckpointInterval every(Duration interval) {
        return new CheckpointInterval(Optional.of(interval));
    }

    /** {@code auto}, or a duration such as {@code 30s}, {@code 10m}, {@code 1h}. */
    public static CheckpointInterval parse(String setting, String value) {
        if (value != null && value.strip().equalsIgnoreCase(AUTO)) {
            return auto();
        }
        try {
            return every(Durations.parsePositive(setting, value));
        } catch (BadValueException e) {
            throw new BadSettingException(setting, "must be 'auto' or a duration such as 30s, 10m or 1h, got '" + value + "'");
        }
    }

    public boolean isAuto() {
        return fixed.isEmpty();
    }

    @Override
    public String toString() {
        return fixed.map(Durations::format).orElse(AUTO);
    }
}
