package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.cli.CliContext;
import org.mpirunft.launcher.cli.MpirunFtCli;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * The paper's comparison: the same node kill (node3, mid-run, 4 compute nodes and a spare)
 * recovered by job pause, by a whole-job restart (the daemons keep running) and by a full
 * restart (the job's node daemons restart too), each on the same cluster, repaired between
 * them (node3 revived, as a site's node after a repair, and nothing of a job left). Both must
 * end with the failure-free result; the recovery times are printed side by side with their
 * ratio, and pause must be the faster. Recovery time: from the kill to the first iteration the
 * job completes afterwards, on the replacement's side of the recovery.
 */
class RecoveryModesIT {
    private static final String NODE = "node3";

    @TempDir
    Path dir;

    @Test
    void pauseRecoversFasterThanAWholeJobRestartAndBothKeepTheResult() throws Exception {
        Map<String, Double> recoveryMs = new LinkedHashMap<>();
        String reference;
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 1, HangAndCutIT.daemons())) {
            // The failure-free run also shows two things: an option mpirun-ft does not own
            // reaches mpirun unchanged, and `mpirun-ft checkpoint JOB` checkpoints now.
            // No checkpoint but the one asked for: a fixed interval longer than the run.
            ClusterJob clean = ClusterJob.start(cluster, dir, "ref-" + cluster.name(), "pause", 0,
                    "--checkpoint-interval", "1h", "--display", "map");
            clean.await("^ITER 5$");
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            PrintStream to = new PrintStream(said, true, StandardCharsets.UTF_8);
            int checkpointNow = MpirunFtCli.execute(new String[] {"checkpoint", "--socket",
                    cluster.stateDirectory().resolve("nodes/head/ftd.sock").toString(), clean.id},
                    new CliContext(to, to, null, Map.of(), DaemonClient::new,
                            Optional.empty(), Clock.systemUTC()));
            assertEquals(0, checkpointNow, said.toString(StandardCharsets.UTF_8));
            // Committed while the run is still paced: waiting for the end unpaces it, and a run
            // that ends before the order reaches its ranks rightly takes no checkpoint.
            FailureOrderIT.awaitEvent(clean, "checkpoint", "committed");
            assertEquals(0, clean.exitCode(), clean.output());
            reference = clean.resultBits();
            assertTrue(clean.output().contains("JOB MAP"), "--display map reached mpirun: " + clean.output());
            var launch = clean.events().stream().filter(e -> e.get("type").asText().equals("launch")).findFirst().orElseThrow();
            String argv = launch.get("argv").toString();
            assertTrue(argv.contains("\"--display\",\"map\""), "passed through unchanged and in order: " + argv);
            var ordered = clean.events().stream()
                    .filter(e -> e.get("type").asText().equals("checkpoint") && e.get("phase").asText().equals("ordered")).toList();
            assertEquals(1, ordered.size(), "one checkpoint ordered on demand: " + clean.eventTypes());
            long epoch = ordered.getFirst().get("epoch").asLong();
            Instant orderedAt = Instant.parse(ordered.getFirst().get("time").asText());
            var committed = clean.events().stream()
                    .filter(e -> e.get("type").asText().equals("checkpoint") && e.get("phase").asText().equals("committed")).toList();
            // The order reaches each node's ranks at its own time; the ranks agree on the highest
            // order seen, so it commits exactly one epoch.
            assertEquals(1, committed.size(), "one order, one epoch: " + committed);
            assertTrue(committed.stream().noneMatch(e -> Instant.parse(e.get("time").asText()).isBefore(orderedAt)),
                    "no checkpoint but the one asked for: " + committed);
            System.out.println("checkpoint now: " + said.toString(StandardCharsets.UTF_8).strip() + "; ordered epoch " + epoch);

            recoveryMs.put("pause", pause(cluster, reference));

            repair(cluster);
            recoveryMs.put("restart", restart(cluster, reference));

            repair(cluster);
            recoveryMs.put("full-restart", fullRestart(cluster, reference));
        }
        double ratio = recoveryMs.get("pause") / recoveryMs.get("restart");
        double fullRatio = recoveryMs.get("pause") / recoveryMs.get("full-restart");
        System.out.printf("recovery after a node kill (kill to the first iteration done after it):%n"
                + "  pause         %8.0f ms%n  restart       %8.0f ms   pause/restart ratio %.3f%n"
                + "  full-restart  %8.0f ms   pause/full-restart ratio %.3f%n",
                recoveryMs.get("pause"), recoveryMs.get("restart"), ratio, recoveryMs.get("full-restart"), fullRatio);
        assertTrue(ratio < 1, "pause must be faster than a whole-job restart: " + recoveryMs);
        assertTrue(recoveryMs.get("full-restart") > recoveryMs.get("pause"), "pause must be faster than a full restart: " + recoveryMs);
    }

    /** Job pause; returns its recovery time in ms. */
    private double pause(SimulatedCluster cluster, String reference) throws Exception {
        ClusterJob pause = ClusterJob.start(cluster, dir, "pause-" + cluster.name(), "pause");
        long killedAt = killMidRun(cluster, pause);
        assertEquals(0, pause.exitCode(), pause.output());
        assertEquals(reference, pause.resultBits(), "pause: the failure-free result");
        long recoveredAt = pause.firstLineAfter(killedAt, "^\\[mpirun-ft\\] recovered ").orElseThrow().nanos();
        long resumedAt = pause.firstLineAfter(recoveredAt, "^ITER \\d+$").orElseThrow().nanos();
        assertEquals(1, pause.eventTypes().stream().filter("launch"::equals).count(), "pause: one launch");
        return (resumedAt - killedAt) / 1e6;
    }

    /** A whole-job restart; returns its recovery time in ms. */
    private double restart(SimulatedCluster cluster, String reference) throws Exception {
        ClusterJob restart = ClusterJob.start(cluster, dir, "restart-" + cluster.name(), "restart");
        long killedAt = killMidRun(cluster, restart);
        assertEquals(0, restart.exitCode(), restart.output());
        assertEquals(reference, restart.resultBits(), "restart: the failure-free result, resumed from the last epoch");
        List<String> types = restart.eventTypes();
        restart.printEvents("restart");
        assertEquals(2, types.stream().filter("launch"::equals).count(), "restart: relaunched once: " + types);
        assertTrue(types.contains("restart"), types.toString());
        long relaunchedAt = restart.firstLineAfter(killedAt, "^START rank=0 ").orElseThrow().nanos();
        long resumedAt = restart.firstLineAfter(relaunchedAt, "^ITER \\d+$").orElseThrow().nanos();
        assertEquals("spare1", restart.whereRanksRan().entrySet().stream()
                .filter(e -> e.getKey().startsWith("END")).map(e -> e.getValue()[1]).filter("spare1"::equals)
                .findFirst().orElse("none"), "restart: the spare took the killed node's rank");
        return (resumedAt - killedAt) / 1e6;
    }

    /** A full restart, the node daemons too; returns its recovery time in ms. */
    private double fullRestart(SimulatedCluster cluster, String reference) throws Exception {
        // The daemons before: only the node daemon runs Java on a node before the job.
        Map<String, Long> daemonsBefore = new LinkedHashMap<>();
        for (String node : List.of("node1", "node2", "node4", "spare1")) {
            daemonsBefore.put(node, javaPids(cluster, node).getFirst());
        }
        ClusterJob full = ClusterJob.start(cluster, dir, "full-" + cluster.name(), "full-restart");
        long killedAt = killMidRun(cluster, full);
        assertEquals(0, full.exitCode(), full.output());
        assertEquals(reference, full.resultBits(), "full restart: the failure-free result");
        full.printEvents("full restart");
        List<String> types = full.eventTypes();
        assertEquals(2, types.stream().filter("launch"::equals).count(), "full restart: relaunched once: " + types);
        assertTrue(types.indexOf("runtime-restart") > types.indexOf("restart")
                && types.indexOf("runtime-restart") < types.lastIndexOf("launch"), "the daemons restart before the relaunch: " + types);
        daemonsBefore.forEach((node, pid) -> {
            assertFalse(SimulatedCluster.NodeProcess.isRunning(pid), node + "'s old daemon " + pid + " is gone");
            assertTrue(javaPids(cluster, node).stream().noneMatch(pid::equals), node + " runs a new daemon");
        });
        long relaunchedAt = full.firstLineAfter(killedAt, "^START rank=0 ").orElseThrow().nanos();
        long resumedAt = full.firstLineAfter(relaunchedAt, "^ITER \\d+$").orElseThrow().nanos();
        return (resumedAt - killedAt) / 1e6;
    }

    /** node3 revived, nothing of the last job left, one group of all nodes again: the next mode's cluster. */
    private static void repair(SimulatedCluster cluster) throws InterruptedException {
        Optional<String> wrong = SharedCluster.repair(cluster, "the last mode's job");
        assertTrue(wrong.isEmpty(), "nothing of the job is left and the repaired cluster is one group again: " + wrong.orElse(""));
    }

    private static List<Long> javaPids(SimulatedCluster cluster, String node) {
        return cluster.processesOn(node).stream().filter(p -> p.command().contains("java")).map(SimulatedCluster.NodeProcess::pid).toList();
    }

    /**
     * Kills {@link #NODE} once the job has committed checkpoints (iteration 12); returns when the
     * first SIGKILL went, on the {@link System#nanoTime} clock.
     */
    private static long killMidRun(SimulatedCluster cluster, ClusterJob job) throws InterruptedException {
        job.await("^ITER 12$");
        java.time.Instant wallBefore = java.time.Instant.now();
        long nanosBefore = System.nanoTime();
        java.time.Instant signalled = cluster.kill(NODE);
        return nanosBefore + java.time.Duration.between(wallBefore, signalled).toNanos();
    }
}
