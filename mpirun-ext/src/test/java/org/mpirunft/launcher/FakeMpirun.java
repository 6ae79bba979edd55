package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Stand-ins for Open MPI's mpirun: small bash scripts, so the launcher's tests need no MPI. */
final class FakeMpirun {
    private FakeMpirun() {
    }

    /** An executable script {@code dir/name} with {@code body} after a bash shebang. */
    static Path script(Path dir, String name, String body) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    /** Waits until {@code condition} holds, failing after {@code millis}. */
    static void waitUntil(long millis, String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + millis + " ms waiting until " + what);
            }
            // Not every 10 ms: many conditions ask a daemon for its table, list a node's processes
            // or read a daemon's whole log, and the machine runs the cluster under test meanwhile.
            Thread.sleep(50);
        }
    }
}
