package org.mpirunft.common;

import java.util.regex.Pattern;

/**
 * The one rule for the names mpirun-ft handles: node names (the daemons' group, the scheduler's
 * placements, {@code --host}), the cluster's name, and job ids. A name is 1 to 63 characters of
 * {@code A-Z a-z 0-9 . _ -} and starts with a letter or a digit, like a host name's label. That
 * keeps every name usable as one path component ({@code .} and {@code ..} are not names), in a log
 * prefix, in a shell word and as an option value (no leading {@code -}), and lets a job id travel
 * wherever a node name does.
 */
public final class Names {
    /** The rule, as error messages state it. */
    public static final String RULE = "1-63 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit";
    public static final int MAX_LENGTH = 63;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_LENGTH - 1) + "}");
    private static final Pattern NOT_ALLOWED = Pattern.compile("[^A-Za-z0-9._-]");
    private static final Pattern LEADING_PUNCTUATION = Pattern.compile("^[._-]+");

    private Names() {
    }

    public static boolean isValid(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** {@code name} if it is valid, else a {@link BadValueException} naming {@code what} ({@code job}, {@code node.name}). */
    public static String requireName(String what, String name) {
        if (!isValid(name)) {
            throw new BadValueException(what, "must be " + RULE + ", got '" + name + "'");
        }
        return name;
    }

    /**
     * A valid name made from any text, such as a PMIx namespace ({@code prterun-node1-4242@1}
     * becomes {@code prterun-node1-4242-1}): each character outside the rule becomes {@code -},
     * leading punctuation is dropped and the rest is cut to {@link #MAX_LENGTH}. A
     * {@link BadValueException} if no letter or digit is left.
     */
    public static String sanitize(String text) {
        String name = LEADING_PUNCTUATION.matcher(NOT_ALLOWED.matcher(text == null ? "" : text).replaceAll("-")).replaceFirst("");
        return requireName("name made from '" + text + "'", name.substring(0, Math.min(name.length(), MAX_LENGTH)));
    }
}
