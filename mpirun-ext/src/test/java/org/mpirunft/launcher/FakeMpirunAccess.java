package org.mpirunft.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** {@link FakeMpirun}'s waiting, for the command line's tests in another package. */
public final class FakeMpirunAccess {
    private FakeMpirunAccess() {
    }

    public static void waitFor(Path file, Duration timeout) throws InterruptedException {
        FakeMpirun.waitUntil(timeout.toMillis(), file + " exists", () -> Files.exists(file));
    }
}
