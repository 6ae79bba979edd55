package org.mpirunft.scheduler;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How a job recovers from a failure; registered with the job. */
public enum RecoveryMode {
    /** Job pause: survivors roll back in place, only the lost ranks start again, on spares. */
    PAUSE,
    /** The whole job is relaunched from its last committed epoch; the node daemons stay. */
    RESTART,
    /** As {@link #RESTART}, and the job's node daemons restart too: the paper's full restart. */
    FULL_RESTART;

    public boolean restartsWholeJob() {
        return this != PAUSE;
    }

    /** {@code pause}, {@code restart}, {@code full-restart}: the option's words. */
    @JsonValue
    public String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @JsonCreator
    public static RecoveryMode ofWord(String word) {
        for (RecoveryMode mode : values()) {
            if (mode.word().equals(word)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("recovery mode must be pause, restart or full-restart, got '" + word + "'");
    }
}
