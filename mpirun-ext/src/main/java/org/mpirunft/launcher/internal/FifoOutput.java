package org.mpirunft.launcher.internal;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * mpirun's stdout and stderr in transparent mode: two named pipes that mpirun writes into, each
 * copied here to the launcher's own stream as it comes. A pipe of mpirun-ft's would not outlive
 * a restore (CRIU restores one end of a pipe whose other end is not in the tree as a broken
 * pipe); a named one is reopened by path, so the restored mpirun writes on where it left off,
 * and the copy opens the pipe again each time a writer is gone, until {@link #finish}.
 */
public final class FifoOutput implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FifoOutput.class.getName());

    private final Path directory;
    private final Path stdout;
    private final Path stderr;
    private final List<Thread> copies;
    private volatile boolean finished;

    private FifoOutput(Path directory, OutputStream out, OutputStream err) {
        this.directory = directory;
        this.stdout = directory.resolve("stdout");
        this.stderr = directory.resolve("stderr");
        mkfifo(stdout);
        mkfifo(stderr);
        this.copies = List.of(copy(stdout, out), copy(stderr, err));
    }

    /** Two named pipes in a new directory under {@code parent}, copied to {@code out} and {@code err} from now on. */
    public static FifoOutput open(Path parent, String job, OutputStream out, OutputStream err) {
        try {
            Files.createDirectories(parent);
            return new FifoOutput(Files.createTempDirectory(parent, "mpirun-ft-" + job + "-"), out, err);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the job's output pipes under " + parent + ": " + e.getMessage(), e);
        }
    }

    public Path stdout() {
        return stdout;
    }

    public Path stderr() {
        return stderr;
    }

    private static void mkfifo(Path path) {
        try {
            // The JDK cannot make a named pipe.
            Process process = new ProcessBuilder("mkfifo", "-m", "600", path.toString()).redirectErrorStream(true).start();
            String said = new String(process.getInputStream().readAllBytes()).strip();
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("mkfifo " + path + " failed: " + said);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run mkfifo: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted making " + path, e);
        }
    }

    private Thread copy(Path fifo, OutputStream target) {
        return Thread.ofPlatform().daemon().name("mpirun-ft-" + fifo.getFileName()).start(() -> {
            byte[] buffer = new byte[1 << 16];
            while (!finished) {
                // Blocks until a writer opens the pipe: mpirun, the restored mpirun, or finish().
                try (InputStream in = new FileInputStream(fifo.toFile())) {
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        target.write(buffer, 0, n);
                    }
                } catch (IOException e) {
                    if (!finished) {
                        LOG.warning(() -> "mpirun-ft: reading the job's " + fifo.getFileName() + ": " + e.getMessage());
                        return;
                    }
                }
            }
            try {
                target.close();
            } catch (IOException e) {
                LOG.fine(() -> "mpirun-ft: closing the job's " + fifo.getFileName() + ": " + e.getMessage());
            }
        });
    }

    /**
     * No writer comes any more: each copy ends once it read what was written, within
     * {@code bound}. The copy waiting for a writer is woken by opening the pipe for writing here.
     */
    public void finish(Duration bound) {
        finished = true;
        for (Path fifo : List.of(stdout, stderr)) {
            Thread waker = Thread.ofPlatform().daemon().start(() -> {
                try (OutputStream ignored = new FileOutputStream(fifo.toFile())) {
                    // Opened and closed: the reader sees a writer come and go.
                } catch (IOException e) {
                    LOG.fine(() -> "mpirun-ft: waking the copy of " + fifo.getFileName() + ": " + e.getMessage());
                }
            });
            try {
                waker.join(bound.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Thread copy : copies) {
            try {
                copy.join(bound.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        if (!finished) {
            finish(Duration.ofSeconds(2));
        }
        try {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            LOG.fine(() -> "mpirun-ft: removing " + directory + ": " + e.getMessage());
        }
    }
}
