package org.mpirunft.bridge.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Whether this rank's JVM can train a JDK AOT cache without changing how the program ends. A JDK
 * 25 JVM that trains ({@code -XX:AOTCacheOutput}) writes the cache when it exits, and if its
 * class path holds a directory of classes, the writing fails and the JVM exits with status 1,
 * whatever the program's own status was. mpirun-ft cannot see the class path of a program it
 * starts through a script; the rank can, so rank 0 answers here, once per program, and
 * mpirun-ft trains only a program whose rank said yes.
 */
public final class AotTraining {
    private static final Logger LOG = Logger.getLogger(AotTraining.class.getName());
    /** The first JDK with {@code -XX:AOTCacheOutput} (JEP 514). */
    static final int FIRST_JDK = 25;

    private AotTraining() {
    }

    /**
     * A JVM can train when it is JDK 25 or newer, runs no module path, and every class path
     * entry is a file (a jar; a {@code lib/*} wildcard arrives here expanded).
     */
    static boolean canTrain(int jdkFeature, String classPath, Optional<String> modulePath) {
        if (jdkFeature < FIRST_JDK || modulePath.filter(p -> !p.isBlank()).isPresent() || classPath == null || classPath.isBlank()) {
            return false;
        }
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty() || !Files.isRegularFile(Paths.get(entry))) {
                return false;
            }
        }
        return true;
    }

    /** Notes in {@code marker} that this JVM can train, if it can: its class path, for whoever reads it. */
    static void answer(Path marker) {
        String classPath = System.getProperty("java.class.path");
        if (!canTrain(Runtime.version().feature(), classPath, Optional.ofNullable(System.getProperty("jdk.module.path")))) {
            LOG.fine(() -> "no AOT training for this program: its class path is not all jars: " + classPath);
            return;
        }
        Path partial = marker.resolveSibling(marker.getFileName() + "." + ProcessHandle.current().pid());
        try {
            Files.writeString(partial, classPath + "\n", StandardCharsets.UTF_8);
            // A sibling: one directory, so the rename is atomic wherever the directory is.
            Files.move(partial, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.fine(() -> "cannot note AOT training in " + marker + ": " + e.getMessage());
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // Nothing more to do: the program simply gets no cache.
            }
        }
    }
}
