package org.mpirunft.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Collects a process's output lines on a thread of its own and lets a test wait for a line,
 * so tests wait on events rather than sleeping for fixed times. Lines are echoed with a prefix
 * so that a failing test's log shows what the job said.
 */
public final class OutputWatcher {
    private final List<String> lines = new ArrayList<>(); // guarded by this
    private final String echoPrefix;
    private boolean closed; // guarded by this

    private OutputWatcher(String echoPrefix) {
        this.echoPrefix = echoPrefix;
    }

    public static OutputWatcher watch(InputStream output, String echoPrefix) {
        OutputWatcher watcher = new OutputWatcher(echoPrefix);
        Thread reader = new Thread(() -> watcher.readAll(output), "output-" + echoPrefix);
        reader.setDaemon(true);
        reader.start();
        return watcher;
    }

    private void readAll(InputStream output) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                System.out.println(echoPrefix + "| " + line);
                synchronized (this) {
                    lines.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            System.out.println(echoPrefix + "| <output closed: " + e.getMessage() + ">");
        } finally {
            synchronized (this) {
                closed = true;
                notifyAll();
            }
        }
    }

    /** The first line matching {@code pattern}, waiting up to {@code timeout} for it to appear. */
    public synchronized Optional<Matcher> await(Pattern pattern, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int scanned = 0;
        while (true) {
            for (; scanned < lines.size(); scanned++) {
                Matcher matcher = pattern.matcher(lines.get(scanned));
                if (matcher.find()) {
                    return Optional.of(matcher);
                }
            }
            long left = deadline - System.nanoTime();
            if (closed || left <= 0) {
                return Optional.empty();
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** Every line matching {@code pattern} so far. */
    public synchronized List<Matcher> all(Pattern pattern) {
        List<Matcher> matches = new ArrayList<>();
        for (String line : lines) {
            Matcher matcher = pattern.matcher(line);
            if (matcher.find()) {
                matches.add(matcher);
            }
        }
        return matches;
    }

    public synchronized String text() {
        return String.join("\n", lines);
    }
}
