package org.mpirunft.npb;

import java.util.Locale;

/** The NPB problem classes, smallest to largest. */
public enum NpbClass {
    S, W, A, B, C;

    /** Parses "a" or "A"; anything else is an error naming the valid classes. */
    public static NpbClass parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("class must be one of S, W, A, B, C, got '" + text + "'");
        }
    }
}
