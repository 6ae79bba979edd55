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

    /** Once the process ended: waits up to 5 s for the reader to take the last of its output. */
    void drain() throws InterruptedException {
        reader.join(5000);
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
