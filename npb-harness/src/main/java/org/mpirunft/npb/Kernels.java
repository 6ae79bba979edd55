package org.mpirunft.npb;

import java.util.List;
import java.util.Locale;

/**
 * Finds kernels by name. A kernel named "cg" is the class {@code org.mpirunft.npb.cg.CgKernel}
 * with a public no-argument constructor, so kernels live in packages of their own.
 */
public final class Kernels {
    public static final List<String> NAMES = List.of("ep", "cg", "is", "mg", "ft", "sp");

    private Kernels() {
    }

    public static Kernel byName(String name) {
        String lower = name.strip().toLowerCase(Locale.ROOT);
        if (!NAMES.contains(lower)) {
            throw new IllegalArgumentException("kernel must be one of " + String.join(", ", NAMES) + ", got '" + name + "'");
        }
        String className = "org.mpirunft.npb." + lower + "." + Character.toUpperCase(lower.charAt(0)) + lower.substring(1) + "Kernel";
        try {
            return (Kernel) Class.forName(className).getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kernel " + lower + " is not available in this build (" + className + ")", e);
        }
    }
}
