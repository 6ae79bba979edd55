package org.mpirunft.bridge.resize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A relaunch with another {@code -np} resumes from a 4-rank job's committed epoch, its
 * block-distributed array redistributed, and ends with the failure-free 4-rank run's bits: the
 * stencil's arithmetic does not depend on the rank count, so the result must match to the last
 * bit. The relaunch is checked by the iteration it resumed at, the newest committed epoch's.
 */
class RelaunchResizeIT {
    private static final long LENGTH = 200_003; // not a multiple of 2, 4 or 8: blocks of unequal length
    private static final int ITERATIONS = 100;
    /** Where the first launch stops: past the epoch of iteration 50, before the job's end. */
    private static final int FIRST_END = 56;
    private static final Pattern FIRST = Pattern.compile("^FIRST it=(\\d+) ranks=(\\d+)");
    private static final Pattern RESULT = Pattern.compile("^RESULT bits=(\\S+) value=\\S+ ranks=(\\d+) recoveries=(\\d+) steps=(\\d+)");
    private static final Duration RUN_BOUND = Duration.ofSeconds(180);

    private static String referenceBits;

    @BeforeAll
    static void failureFreeRun() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(2, 0)) {
            Matcher result = run(cluster, "reference", "node1:2,node2:2", 4, ITERATIONS).result();
            assertEquals("0", result.group(3));
            referenceBits = result.group(1);
        }
    }

    @Test
    void aFourRankCheckpointRelaunchesOnTwoRanks() throws Exception {
        relaunch("shrink", "node1:1,node2:1", 2);
    }

    @Test
    void aFourRankCheckpointRelaunchesOnEightRanks() throws Exception {
        relaunch("grow", "node1:4,node2:4", 8);
    }

    private static void relaunch(String id, String hosts, int ranks) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(2, 0)) {
            Run first = run(cluster, id, "node1:2,node2:2", 4, FIRST_END);
            assertEquals("0", first.result().group(3));
            Path sharedJob = cluster.stateDirectory().resolve("shared/ckpt").resolve(id);
            JsonNode newest = newestManifest(sharedJob);
            assertEquals(4, newest.get("worldSize").asInt(), "the checkpoint is a 4-rank job's");
            long resumeAt = newest.get("iteration").asLong();
            assertTrue(resumeAt >= 40, "an epoch of the first launch's second half committed: " + newest);

            Run again = run(cluster, id, hosts, ranks, ITERATIONS);
            Matcher started = again.output.await(FIRST, Duration.ZERO).orElseThrow();
            assertEquals(Long.toString(resumeAt), started.group(1), "the relaunch resumes at the newest epoch's iteration");
            assertEquals(Integer.toString(ranks), started.group(2));
            Matcher result = again.result();
            assertEquals(referenceBits, result.group(1), "the relaunch on " + ranks + " ranks ends with the failure-free 4-rank bits");
            assertEquals(Integer.toString(ITERATIONS), result.group(4), "the steps scalar came with the epoch");
            assertTrue(again.output.text().contains("of 4 ranks redistributed to " + ranks + " ranks"), again.output.text());
        }
    }

    private static JsonNode newestManifest(Path sharedJob) throws IOException {
        try (Stream<Path> epochs = Files.list(sharedJob)) {
            Path manifest = epochs.map(e -> e.resolve("manifest.json")).filter(Files::exists)
                    .max(Comparator.comparing(Path::toString)).orElseThrow(() -> new AssertionError("no committed epoch in " + sharedJob));
            return new ObjectMapper().readTree(manifest.toFile());
        }
    }

    private record Run(Process process, OutputWatcher output) {
        Matcher result() throws InterruptedException {
            List<Matcher> results = output.all(RESULT);
            assertEquals(1, results.size(), "one result; output:\n" + output.text());
            return results.getFirst();
        }
    }

    private static Run run(SimulatedCluster cluster, String id, String hosts, int ranks, int iterations) throws Exception {
        List<String> program = MpiJobs.java(List.of("-Dmpirunft.job=" + id, "-Dmpirunft.shared.dir=/shared/ckpt",
                "-Dmpirunft.local.dir=/local/ckpt", "-Dmpirunft.checkpoint.every=10", "-Xmx256m"), BlocksRank.class,
                Long.toString(LENGTH), Integer.toString(iterations), "20");
        Process process = cluster.start("head", MpiJobs.mpirun(true, hosts, ranks, program));
        OutputWatcher output = OutputWatcher.watch(process.getInputStream(), id + "-" + ranks);
        assertTrue(process.waitFor(RUN_BOUND.toSeconds(), TimeUnit.SECONDS), id + " on " + ranks + " did not finish; output:\n" + output.text());
        assertEquals(0, process.exitValue(), id + " on " + ranks + " exit status; output:\n" + output.text());
        output.await(RESULT, Duration.ofSeconds(5));
        return new Run(process, output);
    }
}
