package org.mpirunft.launcher;

import java.util.Locale;

/** What mpirun-ft does when a node fails. */
public enum RecoveryMode {
    /** The job pause service: survivors roll back in place, a spare takes the lost ranks. */
    PAUSE,
    /**
     * The baseline of the paper: the whole job is stopped and launched again from the last
     * committed epoch, with the failed nodes replaced by spares. The node daemons keep running.
     */
    RESTART,
    /**
     * The paper's full restart: as {@link #RESTART}, and the runtime is restarted too: the node
     * daemons of the job's nodes leave the group and new ones join before the relaunch.
     */
    FULL_RESTART;

    /** Whether a failure stops the whole job and launches it again. */
    public boolean restartsWholeJob() {
        return this != PAUSE;
    }

    public static RecoveryMode parse(String setting, String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "pause" -> PAUSE;
            case "restart" -> RESTART;
            case "full-restart" -> FULL_RESTART;
            default -> throw new BadSettingException(setting, "must be 'pause', 'restart' or 'full-restart', got '" + value + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
