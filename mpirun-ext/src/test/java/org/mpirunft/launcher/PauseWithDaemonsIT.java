package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.pause.RollbackRank;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.cli.CliContext;
import org.mpirunft.launcher.cli.MpirunFtCli;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * mpirun-ft end to end with the real node daemons: 4 compute nodes and a spare, one rank per
 * node, a job with real state; {@code cluster kill node3} mid-run, ftd included. The scheduler
 * (hosted by the daemons) decides the replacement, and the job ends with the bits of a
 * failure-free run, the live ranks keeping their processes.
 */
class PauseWithDaemonsIT {
    private static final Pattern RESULT = Pattern.compile("(?m)^RESULT bits=(\\S+) value=\\S+ recoveries=(\\d+)");
    private static final Pattern WHERE = Pattern.compile("(?m)^(START|END) rank=(\\d) pid=(\\d+) host=(\\S+)");
    private static final long BOUND_SECONDS = 240;

    @TempDir
    Path dir;

    @Test
    void nodeKillIsRecoveredInPlaceWithTheSchedulersSpareAndTheFailureFreeResult() throws Exception {
        Path daemons = SimulatedCluster.repoRoot().resolve("runtime-daemon/target/ftd");
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 1, daemons)) {
            Path socket = cluster.stateDirectory().resolve("nodes/head/ftd.sock");
            Run reference = run(cluster, socket, "ref-" + cluster.name(), false);
            assertEquals(0, reference.status, reference.output());
            // Rank 0's node: the hardest loss, since rank 0 also reports the recovery.
            Run failed = run(cluster, socket, "kill-" + cluster.name(), true);
            assertTrue(failed.killed().startsWith("node"), "a compute node was killed: " + failed.killed());
            String output = failed.output();
            assertEquals(0, failed.status, output);

            Matcher expected = RESULT.matcher(reference.output());
            Matcher actual = RESULT.matcher(output);
            assertTrue(expected.find() && actual.find(), output);
            assertEquals(expected.group(1), actual.group(1), "the result must be bit-identical to the failure-free run's");
            // Rank 0's replacement counts no recovery of its own; the lowest survivor reports it.
            assertEquals(1, Pattern.compile("(?m)^\\[mpirun-ft\\] recovered replaced=\\[0\\]").matcher(output).results().count(),
                    "exactly one in-place recovery, of rank 0: " + output);

            Map<String, String[]> where = new HashMap<>();
            Matcher line = WHERE.matcher(output);
            while (line.find()) {
                where.put(line.group(1) + line.group(2), new String[] {line.group(3), line.group(4)});
            }
            String lost = "0";
            for (String rank : List.of("0", "1", "2", "3")) {
                if (!rank.equals(lost)) {
                    assertEquals(where.get("START" + rank)[0], where.get("END" + rank)[0], "rank " + rank + " keeps its process");
                }
            }
            assertEquals("spare1", where.get("END" + lost)[1], "rank " + lost + " replaced on the spare");

            List<JsonNode> events = EventLog.read(failed.eventLog);
            List<String> types = events.stream().map(e -> e.get("type").asText()).toList();
            System.out.println("pause with daemons: events " + types);
            events.forEach(e -> System.out.println("  " + e));
            assertTrue(types.containsAll(List.of("launch", "failure", "decision", "replacement", "resume", "exit")), types.toString());
            assertEquals(1, types.stream().filter("launch"::equals).count(), "no relaunch in pause mode: " + types);
        }
    }

    private record Run(int status, ByteArrayOutputStream out, Path eventLog, String killed) {
        String output() {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private Run run(SimulatedCluster cluster, Path socket, String job, boolean killRankZerosNode) throws Exception {
        Path checkpoints = SimulatedCluster.repoRoot().resolve("mpirun-ext/target/it-checkpoints").resolve(cluster.name());
        List<String> args = new ArrayList<>(List.of("--socket", socket.toString(), "--mpirun", mpirunOnHead(cluster).toString(),
                "--agent", SimulatedCluster.FTD_AGENT, "--rank-control-root", "/dev/shm/mpirun-ft/jobs",
                "--checkpoint-dir", checkpoints.toString(), "--job", job, "--recovery", "pause", "--spares", "1",
                "-np", "4", "--mca", "threads_pthreads_yield_strategy", "nanosleep", "-x", "MPIRUN_FT_CHECKPOINT_EVERY=5"));
        args.addAll(MpiJobs.java(List.of(), RollbackRank.class, "1000", "60", "150"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream both = new PrintStream(out, true, StandardCharsets.UTF_8);
        CliContext context = new CliContext(both, both, null, Map.of(), DaemonClient::new, Optional.empty(), Clock.systemUTC());
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> MpirunFtCli.execute(args.toArray(String[]::new), context));
        String killed = null;
        if (killRankZerosNode) {
            FakeMpirun.waitUntil(BOUND_SECONDS * 1000, "iteration 12", () -> out.toString(StandardCharsets.UTF_8).contains("ITER 12"));
            Matcher start = Pattern.compile("(?m)^START rank=0 pid=\\d+ host=(\\S+)").matcher(out.toString(StandardCharsets.UTF_8));
            assertTrue(start.find(), "rank 0 says where it runs");
            killed = start.group(1);
            cluster.kill(killed);
        }
        int code = status.get(BOUND_SECONDS, TimeUnit.SECONDS);
        return new Run(code, out, checkpoints.resolve(job).resolve(LaunchSettings.EVENT_LOG_NAME), killed);
    }

    /** mpirun on the head node, with the job's name for the daemons that start its node daemons. */
    private Path mpirunOnHead(SimulatedCluster cluster) throws IOException {
        Path script = dir.resolve("mpirun");
        Files.writeString(script, "#!/usr/bin/env bash\nexec env MPIRUN_FT_CLUSTER=" + cluster.name() + " "
                + SimulatedCluster.repoRoot().resolve("scripts/cluster")
                + " exec head -e MPIRUN_FT_JOB=\"$MPIRUN_FT_JOB\" -- mpirun \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
