package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.resize.BlocksRank;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.cli.CliContext;
import org.mpirunft.launcher.cli.MpirunFtCli;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * {@code policies.when-no-spare: shrink} with the node daemons: 4 ranks of a block-distributed
 * program on 4 nodes, no spare, node3 killed mid-run. The scheduler places nobody and orders a
 * pause that shrinks; the 3 survivors go on in place from the last committed epoch, redistributed,
 * and end with the failure-free 4-rank run's bits. The event log records the decision
 * ({@code shrink}) and a {@code shrink} event with the new rank count, and {@code mpirun-ft status}
 * shows 3 ranks where there were 4.
 */
class ShrinkWithDaemonsIT {
    private static final ClusterJob.Program BLOCKS = new ClusterJob.Program(200_003, 45, 100, BlocksRank.class);
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,node3:1,node4:1", "--spares", "0"};
    private static final Pattern RANKS = Pattern.compile("(?m)^RESULT .* ranks=(\\d+) recoveries=(\\d+) steps=(\\d+)");

    @TempDir
    Path dir;

    @Test
    void withNoSpareTheJobShrinksInPlaceAndSaysSo() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithNoSpareAction(4, 0, HangAndCutIT.daemons(), "shrink")) {
            Path checkpoints = ClusterJob.checkpointsOf(cluster.name());
            ClusterJob clean = ClusterJob.start(BLOCKS, cluster, dir, "ref-" + cluster.name(), "pause", HOSTS);
            assertEquals(0, clean.exitCode(), clean.output());
            String reference = clean.resultBits();

            String id = "shrink-" + cluster.name();
            ClusterJob job = ClusterJob.start(BLOCKS, cluster, dir, id, "pause", 5, checkpoints, HOSTS);
            job.await("^ITER 12$");
            cluster.kill("node3");
            try {
                FakeMpirun.waitUntil(90_000, "a shrink event", () -> shrink(job).isPresent());
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\noutput without ITER lines:\n" + job.output().replaceAll("(?m)^ITER \\d+\n", "")
                        + "\nevents:\n" + job.eventsText() + "\ndaemons:\n" + cluster.daemonDigest(80, 240), e);
            }
            String status = status(cluster, checkpoints);
            assertEquals(0, job.exitCode(), job.output());

            JsonNode shrink = shrink(job).orElseThrow();
            assertEquals(List.of(2), ints(shrink.get("lostRanks")), shrink.toString());
            assertEquals(4, shrink.get("fromRanks").asInt(), shrink.toString());
            assertEquals(3, shrink.get("ranks").asInt(), shrink.toString());
            assertEquals(List.of("node1", "node2", "node4"), strings(shrink.get("rankNodes")), shrink.toString());
            JsonNode decision = FailureOrderIT.first(job.events(), "decision").orElseThrow();
            assertEquals("shrink", decision.get("action").asText(), decision.toString());
            JsonNode resume = FailureOrderIT.first(job.events(), "resume").orElseThrow();
            assertEquals(0, resume.get("replacedRanks").size(), "nobody was replaced: " + resume);
            assertTrue(resume.get("epoch").asLong() >= 1, "resumed from a committed epoch: " + resume);
            assertEquals(resume.get("epoch").asLong() * 5, resume.get("iteration").asLong(),
                    "resumed at that epoch's iteration (every 5): " + resume);

            Matcher result = RANKS.matcher(job.output());
            assertTrue(result.find(), job.output());
            assertEquals("3", result.group(1), "the run ended on 3 ranks");
            assertEquals("1", result.group(2));
            assertEquals(reference, job.resultBits(), "the shrunk run ends with the failure-free bits");

            System.out.println("shrink event: " + shrink + "\nresume event: " + resume + "\nstatus after the shrink:\n" + status);
            job.output().lines().filter(l -> l.startsWith("[mpirun-ft] recovered")).forEach(System.out::println);
            String row = status.lines().filter(l -> l.startsWith(id)).findFirst().orElseThrow(() -> new AssertionError(status));
            assertTrue(row.contains("3 (was 4)"), "status shows the new rank count: " + row);
            assertTrue(row.contains("node4: 2"), "old rank 3 is rank 2 now: " + row);
        }
    }

    @Test
    void aProgramWithPerRankStateStopsWithTheNoSpareCodeAndTheReason() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithNoSpareAction(4, 0, HangAndCutIT.daemons(), "shrink")) {
            ClusterJob job = ClusterJob.start(ClusterJob.Program.SHORT, cluster, dir, "perrank-" + cluster.name(), "pause", HOSTS);
            job.await("^ITER 12$");
            cluster.kill("node3");
            int code = job.exitCode();
            String output = job.output();
            assertEquals(ExitCode.NO_SPARE.code(), code, output);
            List<String> said = output.lines().filter(l -> l.startsWith("mpirun-ft: ")).toList();
            assertEquals(1, said.size(), "one line from mpirun-ft: " + said);
            assertTrue(said.getFirst().contains("the job cannot shrink: state 'field' is per rank"), said.getFirst());
            assertEquals("shrink", FailureOrderIT.first(job.events(), "decision").orElseThrow().get("action").asText());
        }
    }

    private static Optional<JsonNode> shrink(ClusterJob job) {
        try {
            return FailureOrderIT.first(job.events(), "shrink");
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> values = new java.util.ArrayList<>();
        array.forEach(n -> values.add(n.asInt()));
        return values;
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new java.util.ArrayList<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }

    private static String status(SimulatedCluster cluster, Path checkpoints) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        CliContext context = new CliContext(print, print, null, Map.of(), DaemonClient::new, Optional.empty(), Clock.systemUTC());
        int code = MpirunFtCli.execute(new String[] {"--socket", cluster.stateDirectory().resolve("nodes/head/ftd.sock").toString(),
                "--checkpoint-dir", checkpoints.toString(), "status"}, context);
        assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }
}
