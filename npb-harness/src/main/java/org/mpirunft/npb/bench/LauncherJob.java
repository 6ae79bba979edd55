package org.mpirunft.npb.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One mpirun-ft process on the host. Its merged output is read line by line, each line stamped
 * with the wall clock when read and copied to a log file.
 */
public final class LauncherJob implements AutoCloseable {
    private final Process process;
    private final Clock clock;
    private final Thread reader;
    /** Guarded by itself; readers wait on it for new lines. */
    private final List<TimedLine> lines = new ArrayList<>();
    private boolean ended;

    private LauncherJob(Process process, Clock clock, Path log) throws IOException {
        this.process = process;
        this.clock = clock;
        PrintWriter copy = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true);
        this.reader = Thread.ofPlatform().daemon().name("npb-bench-output").start(() -> read(copy));
    }

    public static LauncherJob start(List<String> command, Path log, Clock clock) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            return new LauncherJob(process, clock, log);
        } catch (IOException e) {
            throw new BenchException("cannot start " + command.getFirst() + ": " + e.getMessage(), e);
        }
    }

    private void read(PrintWriter copy) {
        try (copy; BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                TimedLine timed = new TimedLine(clock.instant(), line);
                copy.println(line);
                synchronized (lines) {
                    lines.add(timed);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process is gone; its output ends here.
        } finally {
            synchronized (lines) {
                ended = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * Waits for the first line matching {@code test}; empty if the output ended or {@code timeout}
     * passed first.
     */
    public Optional<TimedLine> awaitLine(Predicate<String> test, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int checked = 0;
        synchronized (lines) {
            while (true) {
                for (; checked < lines.size(); checked++) {
                    if (test.test(lines.get(checked).text())) {
                        return Optional.of(lines.get(checked));
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    return Optional.empty();
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the exit; on timeout the process tree is killed and empty returned. */
    public Optional<Integer> waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            return Optional.empty();
        }
        reader.join(Duration.ofSeconds(10));
        return Optional.of(process.exitValue());
    }

    public List<TimedLine> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** Kills mpirun-ft and whatever it started on the host (the node side goes with the cluster). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
