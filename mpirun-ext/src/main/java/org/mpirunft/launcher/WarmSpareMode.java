package org.mpirunft.launcher;

import java.util.Locale;

/**
 * {@code --warm-spares}: whether a job that recovers in place launches an idle rank of its
 * program on each spare slot. Those ranks are in the job's {@code MPI_COMM_WORLD}: the rank
 * library hides them from the program, but a program that does not use it sees them, and a
 * drop-in launcher must not change the world a program sees.
 */
public enum WarmSpareMode {
    /** For a program known to use the rank library only ({@link RankLibraryProgram}); the others' spares stay cold. */
    AUTO("auto"),
    /** For every program: the user says it uses the rank library. */
    ON("on"),
    /** Never: a replacement is spawned when needed. */
    OFF("off");

    private final String word;

    WarmSpareMode(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }

    /** {@code auto}, {@code on} or {@code off}; a YAML reader of the 1.1 schema reads on/off as booleans. */
    public static WarmSpareMode parse(String setting, String value) {
        return switch (value == null ? "" : value.strip().toLowerCase(Locale.ROOT)) {
            case "auto" -> AUTO;
            case "on", "true" -> ON;
            case "off", "false" -> OFF;
            default -> throw new BadSettingException(setting, "must be 'auto', 'on' or 'off', got '" + value + "'");
        };
    }
}
