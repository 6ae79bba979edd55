package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * Spares exhausted: 4 compute nodes and 2 spares, three nodes killed one after the other. The
 * first two losses take the spares' warm ranks; the third finds no spare left. Whichever part
 * notices it first (a rank through ULFM, Open MPI through mpirun, the daemons' detector), the
 * job stops with one clear line and the no-spare exit code, its checkpoints kept, as the
 * scheduler's no-spare action says; launched again with the same id on a repaired cluster, it
 * resumes from them, at the iteration of the last committed epoch, and ends with the
 * failure-free result.
 */
class NoSpareIT {
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,node3:1,node4:1,spare1:1,spare2:1", "--spares", "2"};

    @TempDir
    Path dir;

    @Test
    void aJobWithNoSpareLeftStopsWithTheNoSpareCodeAndResumesFromItsCheckpointsWhenLaunchedAgain() throws Exception {
        String reference;
        String job = "nospare-" + System.nanoTime();
        Path checkpoints;
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 2, HangAndCutIT.daemons())) {
            checkpoints = ClusterJob.checkpointsOf(cluster.name());
            // The failure-free bits do not depend on the hosts: the module's run of LONG serves.
            reference = ClusterJob.referenceBits(ClusterJob.Program.LONG, cluster, dir);

            ClusterJob first = ClusterJob.start(ClusterJob.Program.LONG, cluster, dir, job, "pause", 5, checkpoints, HOSTS);
            first.await("^ITER 12$");
            cluster.kill("node3");
            awaitResumes(first, 1);
            first.await("^ITER 30$");
            cluster.kill("node4");
            awaitResumes(first, 2);
            List<JsonNode> replacements = first.events().stream().filter(e -> e.get("type").asText().equals("replacement")).toList();
            assertEquals(List.of("warm", "warm"), replacements.stream().map(e -> e.get("start").asText()).toList(),
                    "the first two losses take the spares' warm ranks: " + replacements);
            assertEquals(List.of("spare1", "spare2"), replacements.stream().map(e -> e.get("toNode").asText()).sorted().toList());
            first.await("^ITER 45$");
            cluster.kill("node2");
            int code = first.exitCode();
            String output = first.output();
            assertEquals(ExitCode.NO_SPARE.code(), code, output);
            List<String> said = output.lines().filter(l -> l.startsWith("mpirun-ft: ")).toList();
            assertEquals(1, said.size(), "one line from mpirun-ft: " + said);
            assertTrue(said.getFirst().contains("no free spare"), said.getFirst());
            assertFalse(output.contains("Exception") || output.contains("\tat "), "no stack trace: " + output);
            JsonNode stop = FailureOrderIT.first(first.events(), "exit").orElseThrow();
            assertEquals(ExitCode.NO_SPARE.code(), stop.get("exitCode").asInt(), stop.toString());
        }
        long resumeAt = lastCommittedIteration(ClusterJob.jobDirectory(checkpoints, job));
        assertTrue(resumeAt > 0, "a committed epoch to resume from");
        try (SimulatedCluster repaired = SimulatedCluster.upWithDaemons(4, 2, HangAndCutIT.daemons())) {
            ClusterJob again = ClusterJob.start(ClusterJob.Program.LONG, repaired, dir, job, "pause", 5, checkpoints, HOSTS);
            assertEquals(0, again.exitCode(), again.output());
            Matcher firstIteration = Pattern.compile("(?m)^ITER (\\d+)$").matcher(again.output());
            assertTrue(firstIteration.find(), again.output());
            assertEquals(resumeAt, Long.parseLong(firstIteration.group(1)),
                    "the relaunch resumes at the iteration of the last committed epoch");
            assertEquals(reference, again.resultBits(), "the failure-free result");
        }
    }

    private static void awaitResumes(ClusterJob job, int count) throws InterruptedException {
        FakeMpirun.waitUntil(60_000, count + " resume event(s)", () -> {
            try {
                return job.events().stream().filter(e -> e.get("type").asText().equals("resume")).count() >= count;
            } catch (java.io.IOException e) {
                return false;
            }
        });
    }

    /** The resume iteration of the newest committed epoch (the one with a manifest) under {@code jobDir}. */
    private static long lastCommittedIteration(Path jobDir) throws Exception {
        try (Stream<Path> epochs = Files.list(jobDir)) {
            Path newest = epochs.filter(p -> p.getFileName().toString().startsWith("epoch-"))
                    .filter(p -> Files.exists(p.resolve("manifest.json"))).max(Path::compareTo)
                    .orElseThrow(() -> new AssertionError("no committed epoch under " + jobDir));
            return new ObjectMapper().readTree(newest.resolve("manifest.json").toFile()).get("iteration").asLong();
        }
    }
}
