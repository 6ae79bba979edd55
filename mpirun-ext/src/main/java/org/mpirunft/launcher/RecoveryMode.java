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
    RESTART;

    public static RecoveryMode parse(String setting, String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "pause" -> PAUSE;
            case "restart" -> RESTART;
            default -> throw new BadSettingException(setting, "must be 'pause' or 'restart', got '" + value + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
