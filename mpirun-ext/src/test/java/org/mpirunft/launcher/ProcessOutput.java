package org.mpirunft.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A started process's output (stdout, with stderr merged into it), read into a buffer on a thread
 * of its own as it comes, so that a test can look at it while the process runs.
 */
record ProcessOutput(StringBuffer text, Thread reader) {
    static ProcessOutput of(Process process) {
        StringBuffer text = new StringBuffer();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (InputStream in = process.getInputStream()) {
                byte[] buffer = new byte[8192];
                int n;
                while ((n = in.read(buffer)) > 0) {
                    text.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException ignored) {
                // The process is gone.
            }
        });
        return new ProcessOutput(text, reader);
    }

    /**
     * Waits up to {@link ClusterJob#BOUND_SECONDS} for {@code process} to end (else kills it and
     * fails, naming {@code what} and its output), then up to 5 s for the last of its output.
     */
    int awaitExit(Process process, String what) throws InterruptedException {
        if (!process.waitFor(ClusterJob.BOUND_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(what + " did not end within " + ClusterJob.BOUND_SECONDS + " s:\n" + this);
        }
        reader.join(5000);
        return process.exitValue();
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
