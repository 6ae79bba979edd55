package org.mpirunft.npb.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The simulated cluster a bench runs on, driven through {@code scripts/cluster}: compute nodes
 * {@code node1..N}, spares, a head node, and one ftd per node. {@link #close()} tears it down
 * whatever state the runs left it in, and may be called again.
 *
 * <p>The scheduler's own checkpoint orders are pushed out to 24 h
 * ({@code MPIRUN_FT_CHECKPOINT_INTERVAL} at {@code up}): it orders checkpoints of every
 * registered job at the cluster's interval whatever mpirun-ft's {@code --checkpoint-interval}
 * says, and a baseline must take none. The bench sets checkpoints in iterations instead.
 *
 * <p>The cluster's MTBF ({@code MPIRUN_FT_CHECKPOINT_MTBF}) is the bench's {@code --mtbf}: the
 * {@code daly} variant's {@code --checkpoint-interval auto} starts from it, as it would on a
 * real cluster from the configured one.
 */
public final class BenchCluster implements AutoCloseable {
    /** The launcher node, where mpirun-ft and mpirun run. */
    static final String HEAD = "head";
    static final String SCHEDULER_INTERVAL = "24h";
    /** A checkpoint's cost before one is measured: about a class B part's staged write here. */
    static final String ASSUMED_COST = "1s";
    private static final Duration UP_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);

    private final Path script;
    private final String name;
    private final int compute;
    private final int spares;
    private final Path share;
    private final Path daemons;
    private final Duration mtbf;
    private boolean up;

    public BenchCluster(Path repo, String name, int compute, int spares, Path share, Path daemons, Duration mtbf) {
        if (!name.matches("[a-z][a-z0-9]{0,7}")) {
            throw new BenchException.Usage("cluster name must be 1-8 lower-case letters or digits starting with a letter, got '" + name + "'");
        }
        this.script = repo.resolve("scripts/cluster");
        this.name = name;
        this.compute = compute;
        this.spares = spares;
        this.share = share;
        this.daemons = daemons;
        this.mtbf = mtbf;
    }

    public String name() {
        return name;
    }

    public Path script() {
        return script;
    }

    /** Starts the nodes and their daemons; returns once the daemons form one group. */
    public void up() {
        run(UP_TIMEOUT, List.of("up", Integer.toString(compute), "--spares", Integer.toString(spares), "--share", share.toString(),
                "--daemons", daemons.toString()));
        up = true;
    }

    /**
     * A whole node lost: its ftd, Open MPI's daemon and its ranks SIGKILLed, its local storage
     * wiped. Returns when the first SIGKILL went, as the script reports it, or empty if it did not
     * say. The script's own start-up comes before that, and is not the failure's.
     */
    public java.util.Optional<java.time.Instant> kill(String node) {
        return org.mpirunft.testkit.ClusterKill.signalledAt(run(COMMAND_TIMEOUT, List.of("kill", node)));
    }

    /** The cluster's state on the host, as {@code scripts/cluster} keeps it. */
    public Path stateDirectory() {
        String cache = System.getenv().getOrDefault("MPIRUN_FT_CACHE", "/var/cache/mpirun-ft");
        return Paths.get(cache, "clusters", name);
    }

    /** The head node's daemon socket, seen from the host, for mpirun-ft's {@code --socket}. */
    public Path headSocket() {
        return stateDirectory().resolve("nodes/head/ftd.sock");
    }

    @Override
    public void close() {
        if (up) {
            run(COMMAND_TIMEOUT, List.of("down"));
            up = false;
        }
    }

    /** Like {@link #close()}, for a cluster this bench may have left up in a crashed run. */
    public void downQuietly() {
        try {
            run(COMMAND_TIMEOUT, List.of("down"));
        } catch (BenchException e) {
            System.err.println("npb-bench: cluster " + name + ": " + e.getMessage());
        }
        up = false;
    }

    private String run(Duration timeout, List<String> arguments) {
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("MPIRUN_FT_CLUSTER", name);
        builder.environment().put("MPIRUN_FT_CHECKPOINT_INTERVAL", SCHEDULER_INTERVAL);
        // In milliseconds: the scheduler's config takes common's duration grammar, and a scaled MTBF may have them.
        builder.environment().put("MPIRUN_FT_CHECKPOINT_MTBF", mtbf.toMillis() + "ms");
        // The cost 'auto' assumes until the first commit measures one: the config's 1m default
        // would put the first checkpoint a whole scaled MTBF after the start.
        builder.environment().put("MPIRUN_FT_CHECKPOINT_COST", ASSUMED_COST);
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            // Read on this thread: the commands print little, and 'up' returns before its daemons' output.
            var output = new java.io.ByteArrayOutputStream();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    process.getInputStream().transferTo(output);
                } catch (IOException e) {
                    // the process went away; what was read is kept
                }
            });
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new BenchException("cluster " + name + ": '" + String.join(" ", arguments) + "' did not finish in " + timeout.toSeconds() + " s");
            }
            reader.join(Duration.ofSeconds(5));
            String text = output.toString(StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                throw new BenchException("cluster " + name + ": '" + String.join(" ", arguments) + "' failed: " + lastLine(text));
            }
            return text;
        } catch (IOException e) {
            throw new BenchException("cannot run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchException("interrupted running " + script + " " + String.join(" ", arguments), e);
        }
    }

    private static String lastLine(String text) {
        String[] lines = text.split("\n");
        return lines[lines.length - 1];
    }
}
