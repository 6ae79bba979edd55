package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.mpirunft.common.Durations;
import org.mpirunft.daemon.FtdConfig;

/**
 * Runs the node's health check ({@link FtdConfig.HealthCheck}) every period and hands each
 * verdict to a listener: empty when the node is healthy, else why not, in one line. One run at a
 * time, on a thread of its own, so a slow check never holds up the daemon; one past its timeout
 * is killed with every process it started.
 */
final class HealthCheck implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HealthCheck.class.getName());
    /** Output read for the verdict, from its end: a check's last line is what it says. */
    private static final int OUTPUT_BYTES = 64 * 1024;

    private final FtdConfig.HealthCheck check;
    /** Starts the check's process: the node agent's {@code startOwn}, which keeps it apart from the job processes. */
    private final Starter starter;

    /** How the check's process is started. */
    @FunctionalInterface
    interface Starter {
        Process start(ProcessBuilder builder) throws IOException;
    }
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            runnable -> Thread.ofPlatform().daemon().name("ftd-health-check").unstarted(runnable));

    /** A check not yet scheduled: {@link #runOnce} runs it. */
    HealthCheck(FtdConfig.HealthCheck check, Starter starter) {
        this.check = check;
        this.starter = starter;
    }

    /** Runs {@code check} now and then every period, each verdict to {@code verdicts}. */
    static HealthCheck start(FtdConfig.HealthCheck check, Starter starter, Consumer<Optional<String>> verdicts) {
        HealthCheck health = new HealthCheck(check, starter);
        health.timer.scheduleWithFixedDelay(() -> verdicts.accept(health.runOnce()), 0, check.every().toMillis(), TimeUnit.MILLISECONDS);
        return health;
    }

    /** One run: empty if the node is healthy, else why not. */
    Optional<String> runOnce() {
        Path output = null;
        try {
            // To a file, not a pipe: a command's children that outlive it (a stuck "sleep") would
            // hold a pipe open, and the verdict would wait for them.
            output = Files.createTempFile("ftd-health-", ".out");
            ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", check.command()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            Process process = starter.start(builder);
            if (!process.waitFor(check.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                // The whole tree: a shell's children would go on after it.
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                return Optional.of("'" + check.command() + "' did not end within " + Durations.format(check.timeout()));
            }
            int status = process.exitValue();
            String last = lastLine(tail(output));
            if (status != 0) {
                return Optional.of("'" + check.command() + "' exited with status " + status + (last.isEmpty() ? "" : ": " + last));
            }
            return check.threshold().isPresent() ? againstThreshold(last, check.threshold().getAsDouble()) : Optional.empty();
        } catch (IOException e) {
            return Optional.of("'" + check.command() + "' cannot run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) {
                    LOG.fine(() -> "cannot remove a health check's output: " + e.getMessage());
                }
            }
        }
    }

    private Optional<String> againstThreshold(String last, double limit) {
        try {
            double value = Double.parseDouble(last);
            return value > limit ? Optional.of("'" + check.command() + "' measured " + last + ", above the threshold " + limit)
                    : Optional.empty();
        } catch (NumberFormatException e) {
            // A check that cannot say its number has not shown the node healthy.
            LOG.warning(() -> "health check '" + check.command() + "' printed '" + last + "', not a number to compare with " + limit);
            return Optional.of("'" + check.command() + "' printed no number (last line '" + last + "')");
        }
    }

    /** The output's last {@link #OUTPUT_BYTES} at most: a chatty check cannot fill the daemon's memory. */
    private static String tail(Path output) throws IOException {
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(output)) {
            long size = file.size();
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate((int) Math.min(size, OUTPUT_BYTES));
            file.read(bytes, size - bytes.capacity());
            return new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8);
        }
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        String last = lines[lines.length - 1].strip();
        return last.length() > 200 ? last.substring(0, 200) + "..." : last;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
