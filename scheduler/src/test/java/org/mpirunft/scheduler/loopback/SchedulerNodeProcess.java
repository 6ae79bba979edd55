package org.mpirunft.scheduler.loopback;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.mpirunft.scheduler.cli.NodeLine;

/**
 * One {@code scheduler-node} child JVM of a {@link SchedulerCluster}: collects its output lines,
 * lets callers wait for one, sends it requests on stdin, kills it.
 */
public final class SchedulerNodeProcess {
    private static final int STDERR_LINES_KEPT = 200;

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final boolean echo;
    // Guarded by this.
    private final List<NodeLine> lines = new ArrayList<>();
    private final Deque<String> stderr = new ArrayDeque<>();
    private boolean stdoutClosed;

    SchedulerNodeProcess(String name, Process process, boolean echo) {
        this.name = name;
        this.process = process;
        this.echo = echo;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        startReader(process.getInputStream(), true);
        startReader(process.getErrorStream(), false);
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Sends one request line (see {@code SchedulerNode}). */
    public synchronized void request(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** SIGKILL, a direct kill(2) through {@link Process#destroyForcibly()}: no fork, for precise timing. */
    public void killNow() {
        process.destroyForcibly();
    }

    /** The first line so far matching {@code condition}, waiting up to {@code timeout} for one. */
    public synchronized Optional<NodeLine> await(Predicate<NodeLine> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int scanned = 0;
        while (true) {
            for (; scanned < lines.size(); scanned++) {
                if (condition.test(lines.get(scanned))) {
                    return Optional.of(lines.get(scanned));
                }
            }
            long left = deadline - System.nanoTime();
            if (stdoutClosed || left <= 0) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Waits until {@code condition} holds for all lines so far; true if it did within {@code timeout}. */
    public synchronized boolean awaitAll(Predicate<List<NodeLine>> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(lines)) {
            long left = deadline - System.nanoTime();
            if (stdoutClosed || left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    public synchronized List<NodeLine> lines() {
        return List.copyOf(lines);
    }

    /** The lines of one event type (CHECKPOINT, PAUSE, MEMBERSHIP, ...), in order. */
    public synchronized List<NodeLine> lines(String event) {
        return lines.stream().filter(l -> l.event().equals(event)).toList();
    }

    public synchronized String stderrTail() {
        return String.join("\n", stderr);
    }

    /** Kills the process for good and waits for it. */
    public void destroy() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void startReader(InputStream stream, boolean isStdout) {
        Thread t = new Thread(() -> read(stream, isStdout), name + (isStdout ? "-out" : "-err"));
        t.setDaemon(true);
        t.start();
    }

    private void read(InputStream stream, boolean isStdout) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (echo) {
                    System.out.println(name + (isStdout ? "| " : "! ") + line);
                }
                synchronized (this) {
                    if (isStdout) {
                        NodeLine parsed = NodeLine.parse(line);
                        if (parsed != null) {
                            lines.add(parsed);
                            notifyAll();
                        }
                    } else {
                        stderr.addLast(line);
                        if (stderr.size() > STDERR_LINES_KEPT) {
                            stderr.removeFirst();
                        }
                    }
                }
            }
        } catch (IOException e) {
            // The process died and its pipes closed: nothing more to read.
        } finally {
            if (isStdout) {
                synchronized (this) {
                    stdoutClosed = true;
                    notifyAll();
                }
            }
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
