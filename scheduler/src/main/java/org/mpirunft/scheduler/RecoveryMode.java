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
    FULL_RESTART,
    /**
     * Transparent mode, for programs that know nothing of mpirun-ft: every node's part of the
     * job's process tree (mpirun, Open MPI's node daemons, the ranks) is restored from the CRIU
     * images of the last committed epoch, the survivors' in place and a lost node's on a spare
     * that takes the node's network identity.
     */
    TRANSPARENT;

    public boolean restartsWholeJob() {
        return this == RESTART || this == FULL_RESTART;
    }

    /** Whether a failure is repaired in place, on the job's nodes and a spare (a pause), rather than by a relaunch. */
    public boolean recoversInPlace() {
        return this == PAUSE || this == TRANSPARENT;
    }

    /** {@code pause}, {@code restart}, {@code full-restart}, {@code transparent}: the option's words. */
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
        throw new IllegalArgumentException("recovery mode must be pause, restart, full-restart or transparent, got '" + word + "'");
    }
}
