package org.mpirunft.membership.loopback;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A main class of the test class path running in a child JVM on this machine, for the
 * process-level tests and the benchmarks of every module: started with this JVM's {@code java}
 * and class path, its stdout turned into lines of type {@code L} as they come (output the parser
 * answers null for, such as log lines, is dropped), the tail of its stderr kept for failure
 * messages. {@link #close()} SIGKILLs it and every process it started and waits for it; a
 * shutdown hook does the same for every child still running when this JVM exits, so a test
 * that ends early leaves nothing behind.
 *
 * @param <L> what one line of the child's stdout is parsed into
 */
public class ChildJvm<L> implements AutoCloseable {
    private static final int STDERR_LINES_KEPT = 200;
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(ChildJvm::kill), "child-jvm-reaper"));
    }

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final Output<L> output;

    /** Starts the child; {@code parser} turns one line of its stdout into an {@code L}, or null to drop it. */
    public ChildJvm(Spec spec, Function<String, L> parser) throws IOException {
        this.name = spec.name;
        this.process = spec.processBuilder().start();
        RUNNING.add(process);
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        // The readers hold the output, not this object, which a subclass is still constructing.
        Output<L> out = new Output<>(name, parser, spec.echo);
        this.output = out;
        startReader(name + "-out", () -> out.readStdout(process.getInputStream()));
        startReader(name + "-err", () -> out.readStderr(process.getErrorStream()));
    }

    /** Starts a child whose stdout lines are kept as they are. */
    public static ChildJvm<String> start(Spec spec) throws IOException {
        return new ChildJvm<>(spec, Function.identity());
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

    /** The process, for its exit: {@link Process#waitFor()}, {@link Process#exitValue()}. */
    public Process process() {
        return process;
    }

    /** Writes one line to the child's stdin. */
    public synchronized void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Linux's numbers of the signals the tests send; their names as kill(1) takes them. */
    private static final Map<String, Integer> SIGNALS = Map.of("HUP", 1, "INT", 2, "KILL", 9, "TERM", 15, "CONT", 18, "STOP", 19);
    /** libc's kill(2), called directly (Java sends only SIGTERM and SIGKILL itself). */
    private static final java.lang.invoke.MethodHandle KILL = java.lang.foreign.Linker.nativeLinker().downcallHandle(
            java.lang.foreign.Linker.nativeLinker().defaultLookup().find("kill").orElseThrow(),
            java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT,
                    java.lang.foreign.ValueLayout.JAVA_INT));

    /**
     * Sends a signal by a direct kill(2): KILL, STOP, CONT, TERM, INT or HUP. Direct, because the
     * tests time from the call: forking kill(1) takes time on a loaded machine that
     * HangDetectionIT counted as detection (its bound was missed by 43 ms, every member late
     * alike, beside the Ansible test).
     */
    public void signal(String signal) throws IOException {
        Integer number = SIGNALS.get(signal);
        if (number == null) {
            throw new IllegalArgumentException("no signal " + signal + " here; known: " + SIGNALS.keySet());
        }
        int rc;
        try {
            rc = (int) KILL.invokeExact((int) process.pid(), (int) number);
        } catch (Throwable e) {
            throw new IOException("kill(" + process.pid() + ", SIG" + signal + ") failed", e);
        }
        if (rc != 0) {
            throw new IOException("kill(" + process.pid() + ", SIG" + signal + ") failed: the process is gone");
        }
    }

    /** SIGKILL through {@link Process#destroyForcibly()}: a direct kill(2), no fork, for precise timing. */
    public void killNow() {
        process.destroyForcibly();
    }

    /** The first line so far matching {@code condition}, waiting up to {@code timeout} for one. */
    public Optional<L> await(Predicate<L> condition, Duration timeout) throws InterruptedException {
        return output.await(condition, timeout);
    }

    /** Waits until {@code condition} holds for all the lines so far; true if it did within {@code timeout}. */
    public boolean awaitAll(Predicate<List<L>> condition, Duration timeout) throws InterruptedException {
        return output.awaitAll(condition, timeout);
    }

    public List<L> lines() {
        return output.lines();
    }

    public String stderrTail() {
        return output.stderrTail();
    }

    /** SIGKILLs the child and the processes it started, and waits for the child. */
    @Override
    public void close() {
        kill(process);
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        RUNNING.remove(process);
    }

    /**
     * SIGKILL needs no SIGCONT for a stopped process. The descendants go first, while they are
     * still the child's: once it is dead they belong to init.
     */
    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static void startReader(String threadName, Runnable reader) {
        Thread t = new Thread(reader, threadName);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }

    /** What the child wrote: its parsed stdout lines, whole, and the tail of its stderr. */
    private static final class Output<L> {
        private final String name;
        private final Function<String, L> parser;
        private final boolean echo;
        // Guarded by this.
        private final List<L> lines = new ArrayList<>();
        private final Deque<String> stderr = new ArrayDeque<>();
        private boolean stdoutClosed;

        Output(String name, Function<String, L> parser, boolean echo) {
            this.name = name;
            this.parser = parser;
            this.echo = echo;
        }

        synchronized Optional<L> await(Predicate<L> condition, Duration timeout) throws InterruptedException {
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

        synchronized boolean awaitAll(Predicate<List<L>> condition, Duration timeout) throws InterruptedException {
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

        synchronized List<L> lines() {
            return List.copyOf(lines);
        }

        synchronized String stderrTail() {
            return String.join("\n", stderr);
        }

        void readStdout(InputStream stream) {
            try {
                read(stream, "| ", line -> {
                    L parsed = parser.apply(line);
                    if (parsed != null) {
                        lines.add(parsed);
                        notifyAll();
                    }
                });
            } finally {
                synchronized (this) {
                    stdoutClosed = true;
                    notifyAll();
                }
            }
        }

        void readStderr(InputStream stream) {
            read(stream, "! ", line -> {
                stderr.addLast(line);
                if (stderr.size() > STDERR_LINES_KEPT) {
                    stderr.removeFirst();
                }
            });
        }

        /** Hands each line to {@code keep}, holding this object's lock. */
        private void read(InputStream stream, String echoMark, Consumer<String> keep) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (echo) {
                        System.out.println(name + echoMark + line);
                    }
                    synchronized (this) {
                        keep.accept(line);
                    }
                }
            } catch (IOException e) {
                // The process died and its pipes closed: nothing more to read.
            }
        }
    }

    /** What to start: a name for output and threads, the main class, and how. */
    public static final class Spec {
        private final String name;
        private final String mainClass;
        private List<String> args = List.of();
        private List<String> jvmArgs = List.of();
        private Path workDir;
        private final Map<String, String> environment = new LinkedHashMap<>();
        private boolean echo;
        private boolean stderrToStdout;
        private int niceness;

        public Spec(String name, Class<?> mainClass) {
            this.name = name;
            this.mainClass = mainClass.getName();
        }

        public Spec args(List<String> a) { this.args = List.copyOf(a); return this; }
        public Spec jvmArgs(List<String> a) { this.jvmArgs = List.copyOf(a); return this; }
        public Spec workDir(Path dir) { this.workDir = dir; return this; }
        public Spec environment(String variable, String value) { this.environment.put(variable, value); return this; }
        /** Copy the child's output to this process's stdout, each line prefixed with the name. */
        public Spec echo(boolean e) { this.echo = e; return this; }
        /** One stream, in the order written, for a child that logs on stderr what the caller reads. */
        public Spec stderrToStdout() { this.stderrToStdout = true; return this; }
        /**
         * Run the child at this niceness ({@code nice -n}, which execs it: the pid is the JVM's).
         * A negative one, ahead of the machine's other work, only where this process may raise a
         * priority (root); elsewhere the child runs at the default.
         */
        public Spec niceness(int n) { this.niceness = n; return this; }

        private ProcessBuilder processBuilder() {
            List<String> command = new ArrayList<>();
            if (niceness > 0 || (niceness < 0 && "root".equals(System.getProperty("user.name")))) {
                command.addAll(List.of("nice", "-n", Integer.toString(niceness)));
            }
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmArgs);
            command.add("-cp");
            command.add(absoluteClassPath());
            command.add(mainClass);
            command.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(stderrToStdout);
            pb.environment().putAll(environment);
            if (workDir != null) {
                pb.directory(workDir.toFile());
            }
            return pb;
        }

        /** This JVM's class path, absolute, since the child may run in another directory. */
        private static String absoluteClassPath() {
            return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).filter(e -> !e.isEmpty())
                    .map(e -> Path.of(e).toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
        }
    }
}
