package org.mpirunft.membership.loopback;

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
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.cli.EventLine;

/**
 * One member of a {@link LoopbackCluster}: a child JVM running {@code membership member
 * --events json}. Collects its event lines, lets callers wait for one, sends it stdin commands
 * and signals.
 */
public final class MemberProcess {
    private static final int STDERR_LINES_KEPT = 200;

    private final String name;
    private final int port;
    private final Process process;
    private final Writer stdin;
    private final boolean echo;
    @GuardedBy("this") private final List<EventLine> lines = new ArrayList<>();
    @GuardedBy("this") private final Deque<String> stderr = new ArrayDeque<>();
    @GuardedBy("this") private boolean stdoutClosed;
    private volatile boolean stopped;

    MemberProcess(String name, int port, Process process, boolean echo) {
        this.name = name;
        this.port = port;
        this.process = process;
        this.echo = echo;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        startReader(process.getInputStream(), true);
        startReader(process.getErrorStream(), false);
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Process process() {
        return process;
    }

    /** Sends one stdin command (see {@code MemberCommand}). */
    public synchronized void command(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Sends a signal with the {@code kill} command, as an operator would: KILL, STOP, CONT, TERM. */
    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed: " + output.strip());
        }
        if (signal.equals("STOP")) {
            stopped = true;
        } else if (signal.equals("CONT")) {
            stopped = false;
        }
    }

    /** SIGKILL through {@link Process#destroyForcibly()}: a direct kill(2), no fork, for precise timing. */
    public void killNow() {
        process.destroyForcibly();
    }

    /** The first line so far matching {@code condition}, waiting up to {@code timeout} for one. */
    public synchronized Optional<EventLine> await(Predicate<EventLine> condition, Duration timeout) throws InterruptedException {
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

    /** Waits until {@code condition} holds for all the lines so far; true if it did within {@code timeout}. */
    public synchronized boolean awaitAll(Predicate<List<EventLine>> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.test(lines)) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (stdoutClosed || left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Waits for a line of type {@code event}, optionally about {@code node}. */
    public Optional<EventLine> await(String event, String node, Duration timeout) throws InterruptedException {
        return await(l -> l.event().equals(event) && (node == null || node.equals(l.node())), timeout);
    }

    public synchronized List<EventLine> lines() {
        return List.copyOf(lines);
    }

    /** The membership events (NODE_*, PARTITION_HEALED, EXPELLED) so far, in order. */
    public synchronized List<EventLine> events() {
        return lines.stream().filter(l -> l.event().startsWith("NODE_") || l.event().equals("PARTITION_HEALED")
                || l.event().equals("EXPELLED")).toList();
    }

    /** The last view this member reported in any line, or empty before the first. */
    public synchronized List<String> lastViewMembers() {
        for (int i = lines.size() - 1; i >= 0; i--) {
            EventLine l = lines.get(i);
            if (l.members() != null && !l.event().equals("LEFT")) {
                return l.members();
            }
        }
        return List.of();
    }

    public synchronized String stderrTail() {
        return String.join("\n", stderr);
    }

    /** Kills the process for good (continuing it first if stopped), and waits for it. */
    public void destroy() {
        if (stopped) {
            try {
                signal("CONT");
            } catch (IOException | InterruptedException e) {
                // destroyForcibly below works on a stopped process too.
            }
        }
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
            String line;
            while ((line = reader.readLine()) != null) {
                if (echo) {
                    System.out.println(name + (isStdout ? "| " : "! ") + line);
                }
                synchronized (this) {
                    if (isStdout) {
                        EventLine parsed = EventLine.parse(line);
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
            // The process died; its pipes closed.
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
        return name + "(pid " + process.pid() + ", port " + port + ")";
    }
}
