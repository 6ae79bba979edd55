package org.mpirunft.bridge.ulfm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;
import org.mpirunft.testkit.SimulatedCluster.NodeProcess;

/**
 * The platform smoke test: a whole simulated node dies under a running Java MPI job, Open MPI's
 * node daemon with it, and the job survives through ULFM by replacing the rank on the spare.
 * Real processes and real signals throughout; nothing is mocked.
 *
 * <p>Set {@code MPIRUN_FT_SMOKE_WITHOUT_ULFM=1} to run the same job without
 * {@code --with-ft ulfm}: the test must then fail, which shows it is not vacuous.
 */
class NodeLossIT {
    private static final Pattern READY = Pattern.compile("smoke: READY size=(\\d+) sum=(\\d+)");
    private static final Pattern FAILURE_SEEN = Pattern.compile("smoke: FAILURE-SEEN class=(\\d+)");
    private static final Pattern FAILED_RANKS = Pattern.compile("smoke: FAILED-RANKS (\\[[0-9, ]*\\])");
    private static final Pattern RECOVERED = Pattern.compile("smoke: RECOVERED ms=(\\d+)");
    private static final Pattern RESULT = Pattern.compile("smoke: RESULT size=(\\d+) sum=(\\d+) expected=(\\d+) hosts=(\\S+)");
    private static final Pattern FINALIZED = Pattern.compile("smoke: FINALIZED");
    private static final Duration START_BOUND = Duration.ofSeconds(60);
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(60);
    /** The rank's finalize watchdog fires at 20 s; a job still running well after is hung. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(45);

    @Test
    void survivorReplacesKilledNodeOnSpareAndExitsCleanly() throws Exception {
        boolean ulfm = !"1".equals(System.getenv("MPIRUN_FT_SMOKE_WITHOUT_ULFM"));
        SimulatedCluster cluster = SimulatedCluster.up(2, 1);
        try (cluster) {
            Process job = cluster.start("head", MpiJobs.mpirun(ulfm, "node1:1,node2:1,spare1:1", 2,
                    MpiJobs.java(List.of(), NodeLossSmokeRank.class, "spare1")));
            OutputWatcher output = OutputWatcher.watch(job.getInputStream(), "job");

            Matcher ready = output.await(READY, START_BOUND)
                    .orElseThrow(() -> new AssertionError("job never became ready; output:\n" + output.text()));
            assertEquals("2", ready.group(1), "world size before the failure");
            assertEquals("2", ready.group(2), "allreduce of 1 over 2 ranks before the failure");

            List<NodeProcess> before = cluster.processesOn("node2");
            assertTrue(before.stream().anyMatch(p -> p.command().equals("prted")),
                    "Open MPI's node daemon must run on node2 before the kill: " + before);
            assertTrue(before.stream().anyMatch(p -> p.command().equals("java")),
                    "rank 1 must run on node2 before the kill: " + before);

            long killedAt = System.nanoTime();
            cluster.kill("node2");
            assertEquals(List.of(), cluster.processesOn("node2"), "node2 must be empty after the kill");
            for (NodeProcess process : before) {
                assertTrue(NodeProcess.stopsWithin(process.pid(), java.time.Duration.ofSeconds(5)), "process " + process
                        + " of node2 survived the kill, state " + NodeProcess.state(process.pid()));
            }

            Matcher failure = output.await(FAILURE_SEEN, RECOVERY_BOUND)
                    .orElseThrow(() -> new AssertionError("survivor never saw the failure; output:\n" + output.text()));
            assertTrue(Ulfm.isFailureClass(Integer.parseInt(failure.group(1))), "error class " + failure.group(1));
            Matcher failed = output.await(FAILED_RANKS, RECOVERY_BOUND)
                    .orElseThrow(() -> new AssertionError("no failed-rank query; output:\n" + output.text()));
            assertEquals("[1]", failed.group(1), "MPIX_Comm_get_failed must name rank 1, on node2");
            Matcher result = output.await(RESULT, RECOVERY_BOUND)
                    .orElseThrow(() -> new AssertionError("no result after the kill; output:\n" + output.text()));
            long killToResultMillis = (System.nanoTime() - killedAt) / 1_000_000;
            Matcher recovered = output.all(RECOVERED).getFirst();
            System.out.printf("node loss smoke: kill -> result %d ms, survivor's repair %s ms%n",
                    killToResultMillis, recovered.group(1));

            assertEquals("2", result.group(1), "the repaired world must have the original size");
            assertEquals("5", result.group(2), "allreduce of (rank+1)^2 over 2 ranks on the repaired world");
            assertEquals(result.group(3), result.group(2), "the rank's own expectation");
            assertEquals("node1,spare1", result.group(4), "rank 1 must now run on the spare");

            assertTrue(job.waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS),
                    "job hung at exit; output:\n" + output.text());
            assertEquals(0, job.exitValue(), "mpirun exit status; output:\n" + output.text());
            assertTrue(output.await(FINALIZED, Duration.ofSeconds(5)).isPresent(),
                    "rank 0 did not finish MPI_Finalize; output:\n" + output.text());
        }
        assertTrue(cluster.isGone(), "the cluster's namespaces must be gone after close");
    }
}
