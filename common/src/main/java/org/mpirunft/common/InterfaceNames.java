package org.mpirunft.common;

import java.util.regex.Pattern;

/**
 * The one rule for the network interface names mpirun-ft takes (transparent mode's job network:
 * ftd's {@code transparent.interface} and {@code transparent.parent}, mpirun-ft's
 * {@code --job-interface}, which Open MPI's {@code *_if_include} options then take): 1 to 15
 * characters, the kernel's limit ({@code IFNAMSIZ} is 16 with the terminating NUL), of
 * {@code A-Z a-z 0-9 _ . -}, but not {@code .} or {@code ..}, which the kernel refuses (they are
 * directory names under {@code /sys/class/net}). The kernel takes more characters (any but
 * {@code /}, {@code :} and white space); these keep a name one word in an {@code ip} command, a
 * shell and an MCA value.
 */
public final class InterfaceNames {
    /** The rule, as error messages state it. */
    public static final String RULE = "1-15 letters, digits, '_', '.', '-', not '.' or '..'";
    public static final int MAX_LENGTH = 15;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1," + MAX_LENGTH + "}");

    private InterfaceNames() {
    }

    public static boolean isValid(String name) {
        return name != null && NAME.matcher(name).matches() && !name.equals(".") && !name.equals("..");
    }

    /**
     * {@code text} stripped, if that is a valid name; else a {@link BadValueException} naming
     * {@code setting} and quoting {@code text} as given.
     */
    public static String requireName(String setting, String text) {
        String name = text == null ? "" : text.strip();
        if (!isValid(name)) {
            throw new BadValueException(setting, "must be a network interface name (" + RULE + "), got '" + text + "'");
        }
        return name;
    }
}
