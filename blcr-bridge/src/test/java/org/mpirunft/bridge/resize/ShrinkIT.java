package org.mpirunft.bridge.resize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * {@code when-no-spare: shrink} without a daemon: 4 ranks on 4 nodes, no spare, a node killed
 * mid-run. The 3 survivors go on in place (their PIDs unchanged) from the last committed epoch,
 * its blocks redistributed over 3 ranks, and the run ends with the failure-free 4-rank run's bits:
 * the stencil's arithmetic does not depend on the rank count. A program that runs on powers of
 * two goes on with 2 of the 3 survivors; the third leaves the world and waits for the end.
 */
class ShrinkIT {
    private static final long LENGTH = 200_003;
    private static final int ITERATIONS = 100;
    private static final String HOSTS = "node1:1,node2:1,node3:1,node4:1";
    private static final Pattern RESULT = Pattern.compile("^RESULT bits=(\\S+) value=\\S+ ranks=(\\d+) recoveries=(\\d+) steps=(\\d+)");
    private static final Pattern REPORT = Pattern.compile(
            "^REPORT \\[mpirun-ft\\] recovered replaced=\\[\\] epoch=(\\d+) iteration=(\\d+) .* ranks=(\\d+) shrunk=\\[([0-9,]*)\\]$");
    private static final Pattern PID = Pattern.compile("^PID rank=(\\d+) pid=(\\d+) (\\S+)$");
    private static final Duration RUN_BOUND = Duration.ofSeconds(180);

    private static String reference;

    @BeforeAll
    static void failureFreeRun() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 0)) {
            Process job = start(cluster, "shrinkref", false);
            OutputWatcher output = OutputWatcher.watch(job.getInputStream(), "shrinkref");
            finish(job, output, "shrinkref");
            Matcher result = output.await(RESULT, Duration.ofSeconds(5)).orElseThrow();
            assertEquals("0", result.group(3));
            reference = result.group(1);
        }
    }

    @Test
    void theSurvivorsGoOnWithoutTheLostNodeAndEndWithTheFailureFreeBits() throws Exception {
        OutputWatcher output = shrinkRun("shrink", false, 3);
        assertSurvivorsKeptPids(output, java.util.Map.of("0", "0", "1", "1", "3", "2"));
    }

    @Test
    void aProgramOnPowersOfTwoGoesOnWithTwoOfTheThreeSurvivors() throws Exception {
        OutputWatcher output = shrinkRun("shrinkpow2", true, 2);
        assertSurvivorsKeptPids(output, java.util.Map.of("0", "0", "1", "1"));
        assertTrue(output.text().contains("rank 3: the program runs on 2 ranks; this process leaves the world"),
                "old rank 3, the third survivor, left: " + output.text());
    }

    @Test
    void aProgramWithPerRankStateStopsWithTheReasonInsteadOfShrinking() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 0)) {
            List<String> program = MpiJobs.java(List.of("-Dmpirunft.job=perrank", "-Dmpirunft.shared.dir=/shared/ckpt",
                    "-Dmpirunft.local.dir=/local/ckpt", "-Dmpirunft.checkpoint.every=10", "-Dmpirunft.when.no.spare=shrink"),
                    org.mpirunft.bridge.pause.RollbackRank.class, "1000", "200", "25");
            Process job = cluster.start("head", MpiJobs.mpirun(true, HOSTS, 4, program));
            OutputWatcher output = OutputWatcher.watch(job.getInputStream(), "perrank");
            assertTrue(output.await(Pattern.compile("^ITER 25$"), RUN_BOUND).isPresent(), output.text());
            cluster.kill("node3");
            assertTrue(job.waitFor(RUN_BOUND.toSeconds(), TimeUnit.SECONDS), "the job stops, not hangs: " + output.text());
            assertTrue(job.exitValue() != 0, "a job that cannot go on fails: " + output.text());
            assertTrue(output.text().contains("no spare for ranks [2], and the job cannot shrink: state 'field' is per rank"),
                    "the reason, naming the state: " + output.text());
        }
    }

    /** Kills node3 (rank 2) once epoch 4 committed; checks the recovery went on with {@code ranks} ranks and the result. */
    private static OutputWatcher shrinkRun(String id, boolean powersOfTwo, int ranks) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(4, 0)) {
            Process job = start(cluster, id, powersOfTwo);
            OutputWatcher output = OutputWatcher.watch(job.getInputStream(), id);
            Path sharedJob = cluster.stateDirectory().resolve("shared/ckpt").resolve(id);
            Path manifest = sharedJob.resolve(String.format("epoch-%010d", 4)).resolve("manifest.json");
            assertTrue(output.await(Pattern.compile("^ITER 41$"), RUN_BOUND).isPresent(), output.text());
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!Files.exists(manifest) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(Files.exists(manifest), "epoch 4 committed; output:\n" + output.text());
            cluster.kill("node3");
            finish(job, output, id);

            Matcher report = output.await(REPORT, Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError(output.text()));
            assertEquals("2", report.group(4), "rank 2, on node3, was lost and not replaced");
            assertEquals(Integer.toString(ranks), report.group(3), "the job went on with " + ranks + " ranks");
            long epoch = Long.parseLong(report.group(1));
            assertTrue(epoch >= 4, "rolled back to a committed epoch, not to the start: " + report.group());
            assertEquals(epoch * 10, Long.parseLong(report.group(2)), "resumed at the epoch's iteration (every 10)");
            Matcher result = output.await(RESULT, Duration.ofSeconds(5)).orElseThrow();
            assertEquals(Integer.toString(ranks), result.group(2), "the run ended on " + ranks + " ranks");
            assertEquals(reference, result.group(1), "the shrunk run ends with the failure-free bits");
            assertEquals(Integer.toString(ITERATIONS), result.group(4));
            assertTrue(output.text().contains("of 4 ranks redistributed to " + ranks + " ranks"), output.text());
            return output;
        }
    }

    /** Each old rank that goes on is its new rank ({@code oldToNew}) in the same process. */
    private static void assertSurvivorsKeptPids(OutputWatcher output, java.util.Map<String, String> oldToNew) {
        List<Matcher> pids = output.all(PID);
        java.util.Map<String, String> start = new java.util.HashMap<>();
        java.util.Map<String, String> end = new java.util.HashMap<>();
        for (Matcher m : pids) {
            (m.group(3).equals("start") ? start : end).put(m.group(1), m.group(2));
        }
        oldToNew.forEach((old, now) -> assertEquals(start.get(old), end.get(now), "old rank " + old + " goes on as rank " + now
                + " in the same process: " + output.text()));
        assertEquals(oldToNew.size(), end.size(), "only they print an end: " + end);
    }

    private static Process start(SimulatedCluster cluster, String id, boolean powersOfTwo) {
        List<String> program = MpiJobs.java(List.of("-Dmpirunft.job=" + id, "-Dmpirunft.shared.dir=/shared/ckpt",
                "-Dmpirunft.local.dir=/local/ckpt", "-Dmpirunft.checkpoint.every=10", "-Dmpirunft.when.no.spare=shrink", "-Xmx256m"),
                BlocksRank.class, Long.toString(LENGTH), Integer.toString(ITERATIONS), "25", powersOfTwo ? "pow2" : "any");
        return cluster.start("head", MpiJobs.mpirun(true, HOSTS, 4, program));
    }

    private static void finish(Process job, OutputWatcher output, String id) throws InterruptedException {
        assertTrue(job.waitFor(RUN_BOUND.toSeconds(), TimeUnit.SECONDS), id + " did not finish; output:\n" + output.text());
        assertEquals(0, job.exitValue(), id + " exit status; output:\n" + output.text());
    }
}
