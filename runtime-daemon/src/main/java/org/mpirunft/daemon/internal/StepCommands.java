package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The commands a transparent step runs on this node (nft, ip, ss, tar, CRIU, nsenter): each one
 * of the daemon's own processes ({@link NodeAgent#startOwn}), so the agent's reaping leaves it to
 * the JVM, and each bounded by {@code transparent.timeout}. A command that fails or runs out
 * throws with the step's name for it and its last lines of output.
 *
 * @param node    this node, first in every message
 * @param agent   what starts each command as one of the daemon's own processes
 * @param timeout one command's bound ({@code transparent.timeout})
 */
record StepCommands(String node, NodeAgent agent, Duration timeout) {
    private static final Logger LOG = Logger.getLogger(StepCommands.class.getName());

    /** Runs CRIU; a failure throws with CRIU's error lines from its log. */
    void runCriu(String what, List<String> command, Path log) {
        try {
            run("CRIU " + what, command, null);
        } catch (IllegalStateException e) {
            String errors = "";
            try (Stream<String> lines = Files.lines(log)) {
                errors = String.join(" | ", lines.filter(l -> l.contains("Error")).filter(l -> !l.contains("RLIMIT_NOFILE"))
                        .limit(4).toList());
            } catch (IOException | java.io.UncheckedIOException ignored) {
                // No log: the message says what the command said.
            }
            // prlimit(2) on another user's process needs CAP_SYS_RESOURCE: say so, not only CRIU's errno.
            String hint = errors.contains("Can't get rlimit") ? "; CRIU cannot read another user's resource limits: the daemon needs"
                    + " CAP_SYS_RESOURCE" : "";
            throw new IllegalStateException(e.getMessage() + (errors.isEmpty() ? "" : "; CRIU's log " + log + ": " + errors) + hint, e);
        }
    }

    /** Runs {@code command} for what it does, not for its word: a failure is logged (fine) and passed over. */
    void runQuietly(List<String> command) {
        try {
            run(command.getFirst(), command, null);
        } catch (IllegalStateException e) {
            LOG.fine(() -> node + ": " + e.getMessage());
        }
    }

    /** Runs {@code command} with {@code input} on its stdin; returns its output, or throws naming {@code what} and its last lines. */
    String run(String what, List<String> command, String input) {
        return run(what, command, input, null);
    }

    /** Runs {@code command} with the file {@code input} on its stdin, opened here (by root). */
    String runWithInput(String what, List<String> command, Path input) {
        return run(what, command, null, input);
    }

    private String run(String what, List<String> command, String input, Path inputFile) {
        Path output = null;
        try {
            // To a file, not a pipe: a command that hangs must not hold the daemon past the timeout in a read.
            output = Files.createTempFile("ftd-transparent-", ".out");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            if (inputFile != null) {
                builder.redirectInput(inputFile.toFile());
            }
            Process process = agent.startOwn(builder);
            try (var stdin = process.getOutputStream()) {
                if (input != null && inputFile == null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(node + ": " + what + " did not end within " + timeout.toSeconds() + " s");
            }
            String text = Files.readString(output);
            if (process.exitValue() != 0) {
                String[] lines = text.strip().split("\n");
                String tail = String.join(" | ", java.util.Arrays.asList(lines).subList(Math.max(0, lines.length - 3), lines.length));
                throw new IllegalStateException(node + ": " + what + " failed (" + command.getFirst() + " exited with "
                        + process.exitValue() + (tail.isBlank() ? "" : ": " + tail) + ")");
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException(node + ": " + what + ": cannot run " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(node + ": interrupted while " + what, e);
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException ignored) {
                    // A temporary file left behind.
                }
            }
        }
    }
}
