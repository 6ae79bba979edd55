package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpirunft.common.MpirunSettings;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * What a scripts/chaos job runs, how the campaign follows it and how it judges its end: the
 * progress line the faults are placed by, what a rank process's command line holds (to find the
 * job's processes on a node), how it is launched and what its correct result is.
 */
enum ChaosProgram {
    /** The rank library's test program; correct: the failure-free reference run's bits (the campaign runs it first). */
    ROLLBACK_RANK("RollbackRank (100 iterations of 150 ms, a checkpoint every 5; right: the failure-free run's bits)",
            ChaosPlan.PROGRAM.iterations(), "^ITER (\\d+)$", "RollbackRank", true),
    /**
     * NPB's EP, class S, through {@code npb-harness/bin/npb} (registered with blcr-bridge, run by
     * FtRank.run): 64 iterations of milliseconds, paced to 400 ms each (NPB_PACE_MS, as npb-bench
     * paces class S) so that the job runs 25-40 s and can be failed mid-run. Right: NPB's own
     * verification against the official values (exit 0 and its VERIFICATION SUCCESSFUL line).
     */
    NPB_EP("NPB EP class S (npb-harness/bin/npb ep S, 64 iterations paced 400 ms, a checkpoint every 4; right: NPB's verification)",
            64, "^\\[npb\\] iteration (\\d+) of \\d+$", "org.mpirunft.npb.Npb", true),
    /**
     * A Java MPI ring that knows nothing of mpirun-ft (TransparentIT's), under CRIU every 4 s.
     * Right: its failure-free checksum, computed from the ring's arithmetic as TransparentIT does.
     * A relaunch is not checked for where it resumed: its epochs are CRIU's, in the daemons'
     * root-only storage, with no iteration in their manifest.
     */
    TRANSPARENT_RING("TransparentRing (no rank library: 100 iterations of 200 ms, CRIU every 4 s; right: its failure-free checksum)",
            100, "^ITER (\\d+) \\d+$", "TransparentRing", false);

    static final int RANKS = ChaosPlan.RANKS;
    private static final int NPB_PACE_MS = 400;
    private static final int NPB_CHECKPOINT_EVERY = 4;
    private static final int RING_PACE_MS = 200;
    private static final String RING_CHECKPOINT_INTERVAL = "4s";
    private static final Pattern NPB_VERIFIED = Pattern.compile("(?m)^ VERIFICATION SUCCESSFUL$");
    private static final Pattern RING_CHECKSUM = Pattern.compile("(?m)^CHECKSUM (\\d+)$");

    final String description;
    final int iterations;
    /** A progress line; its first group is the iteration. */
    final Pattern progress;
    /** In the command line of each of the job's rank processes (and of no other process on a node). */
    final String rankMarker;
    /** Whether a relaunch must start at the last committed epoch's iteration (the rank library's manifest says which). */
    final boolean resumesAtCommittedIteration;

    ChaosProgram(String description, int iterations, String progress, String rankMarker, boolean resumesAtCommittedIteration) {
        this.description = description;
        this.iterations = iterations;
        this.progress = Pattern.compile(progress);
        this.rankMarker = rankMarker;
        this.resumesAtCommittedIteration = resumesAtCommittedIteration;
    }

    /** The iteration of a progress line, -1 if it is none. */
    int iterationOf(String line) {
        Matcher m = progress.matcher(line);
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The first progress line's iteration in {@code output}, -1 if none: where a relaunch started. */
    int firstIteration(String output) {
        return output.lines().mapToInt(this::iterationOf).filter(i -> i >= 0).findFirst().orElse(-1);
    }

    /**
     * Starts one attempt of job {@code id} on the head node's daemon, with the kind's options
     * ({@code --recovery}, {@code --warm-spares}), {@code hosts} (the compute nodes, then both
     * spares) and its event log at {@code eventLog}, off the checkpoint directory that a full-disk
     * fault fills, so that the campaign still sees the job's events.
     */
    ChaosJob start(SimulatedCluster cluster, Path scratch, Path checkpoints, String id, List<String> kindOptions, String hosts,
                   Path eventLog) throws IOException {
        List<String> options = new ArrayList<>(kindOptions);
        options.addAll(List.of("--host", hosts, "--spares", "2", "--event-log", eventLog.toString()));
        return switch (this) {
            case ROLLBACK_RANK -> ChaosJob.of(ClusterJob.startFrom(ChaosPlan.PROGRAM, "head", cluster, scratch, id, "pause", 5, checkpoints,
                    options.toArray(String[]::new)));
            case NPB_EP -> {
                options.addAll(List.of("--checkpoint-interval", "every " + NPB_CHECKPOINT_EVERY,
                        "-x", "NPB_PACE_MS=" + NPB_PACE_MS, "-x", "NPB_JAVA_OPTS=-Xmx256m"));
                List<String> npb = List.of(SimulatedCluster.repoRoot().resolve("npb-harness/bin/npb").toString(), "ep", "S");
                yield ChaosJob.of(ClusterJob.startProgram(cluster, scratch, id, npb, options.toArray(String[]::new)));
            }
            case TRANSPARENT_RING -> {
                // On the head node as a user runs it there: its site config names the daemon's
                // socket, the launch agent and the shared storage CRIU's epochs go to.
                List<String> command = new ArrayList<>(List.of("mpirun-ft", "--job", id));
                command.addAll(options);
                command.addAll(List.of("--checkpoint-interval", RING_CHECKPOINT_INTERVAL, "--exit-timeout", "15s", "-np",
                        Integer.toString(RANKS)));
                command.addAll(MpirunSettings.SHARED_CORES.argv());
                command.addAll(MpiJobs.java(List.of(), TransparentRing.class, Integer.toString(iterations), Integer.toString(RING_PACE_MS)));
                yield HeadNodeJob.start(cluster, id, eventLog, command);
            }
        };
    }

    /**
     * What is wrong with the result of a run that exited 0, or empty: {@code rollbackBits} is the
     * failure-free RollbackRank run's (the others carry their own reference).
     */
    Optional<String> wrongResult(String output, String rollbackBits) {
        return switch (this) {
            case ROLLBACK_RANK -> {
                Matcher m = ClusterJob.RESULT.matcher(output);
                String bits = m.find() ? m.group(1) : "(none)";
                yield bits.equals(rollbackBits) ? Optional.empty() : Optional.of("bits " + bits + ", not the failure-free " + rollbackBits);
            }
            case NPB_EP -> NPB_VERIFIED.matcher(output).find() ? Optional.empty()
                    : Optional.of("no 'VERIFICATION SUCCESSFUL' from NPB (" + output.lines().filter(l -> l.contains("VERIFICATION")
                            || l.strip().startsWith("Verification")).findFirst().orElse("no verification line").strip() + ")");
            case TRANSPARENT_RING -> {
                String expected = ringChecksum();
                Matcher m = RING_CHECKSUM.matcher(output);
                String got = m.find() ? m.group(1) : "(none)";
                yield got.equals(expected) ? Optional.empty() : Optional.of("checksum " + got + ", not the failure-free " + expected);
            }
        };
    }

    private static String ringChecksum;

    /** The ring's failure-free checksum on 4 ranks, computed once (it costs a few hundred ms). */
    private static synchronized String ringChecksum() {
        if (ringChecksum == null) {
            ringChecksum = TransparentRing.expectedChecksum(RANKS, TRANSPARENT_RING.iterations);
        }
        return ringChecksum;
    }
}
