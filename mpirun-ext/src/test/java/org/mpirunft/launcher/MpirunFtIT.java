package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
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
 * mpirun-ft running a real Java MPI job on a simulated cluster while a whole node is killed,
 * with a fake daemon standing in for ftd (no scheduler: the failure reaches mpirun-ft through
 * mpirun's output alone). The end-to-end tests with the real daemons are the lead's.
 */
class MpirunFtIT {
    private static final Pattern RESULT = Pattern.compile("RESULT bits=(\\S+) value=\\S+ recoveries=(\\d+)");
    private static final long BOUND_SECONDS = 180;

    @TempDir
    Path dir;

    @Test
    void pauseModeReplacesTheKilledNodesRankOnTheSpareAndExitsZero() throws Exception {
        Run run = runWithNode2Killed("pause");
        assertEquals(0, run.status, run.output());
        Matcher result = RESULT.matcher(run.output());
        assertTrue(result.find(), run.output());
        assertEquals("1", result.group(2), "one in-place recovery");
        assertTrue(run.output().contains("END rank=1 pid="), run.output());
        assertTrue(run.output().matches("(?s).*END rank=1 pid=\\d+ host=spare1.*"), run.output());
        List<String> types = run.eventTypes();
        assertTrue(types.containsAll(List.of("failure", "replacement", "resume")), types.toString());
        assertEquals(1, types.stream().filter("launch"::equals).count(), "no relaunch: " + types);
    }

    @Test
    void restartModeRelaunchesTheWholeJobOnTheSpareFromItsLastCheckpoint() throws Exception {
        Run run = runWithNode2Killed("restart");
        assertEquals(0, run.status, run.output());
        Matcher result = RESULT.matcher(run.output());
        assertTrue(result.find(), run.output());
        assertEquals("0", result.group(2), "no in-place recovery: a fresh launch");
        assertTrue(run.output().matches("(?s).*END rank=1 pid=\\d+ host=spare1.*"), run.output());
        List<String> types = run.eventTypes();
        assertEquals(2, types.stream().filter("launch"::equals).count(), types.toString());
        assertTrue(types.contains("restart"), types.toString());
    }

    private record Run(int status, ByteArrayOutputStream out, Path eventLog) {
        String output() {
            return out.toString(StandardCharsets.UTF_8);
        }

        List<String> eventTypes() {
            return EventLog.read(eventLog).stream().map(e -> e.get("type").asText()).toList();
        }
    }

    private Run runWithNode2Killed(String recovery) throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(2, 1);
             FakeDaemon daemon = new FakeDaemon(dir.resolve("ftd.sock"))) {
            daemon.status(FakeDaemon.status("head", List.of(FakeDaemon.member("node1", "COMPUTE", 1),
                    FakeDaemon.member("node2", "COMPUTE", 1), FakeDaemon.member("spare1", "SPARE", 1))));
            Path mpirun = mpirunOnHead(cluster);
            // Shared with the nodes at the same path (the repository is), unlike this test's temporary directory.
            Path checkpoints = SimulatedCluster.repoRoot().resolve("mpirun-ext/target/it-checkpoints").resolve(cluster.name());
            String job = "it-" + cluster.name();
            List<String> args = new ArrayList<>(List.of("--socket", daemon.socket().toString(), "--mpirun", mpirun.toString(),
                    "--agent", SimulatedCluster.LAUNCH_AGENT, "--checkpoint-dir", checkpoints.toString(), "--job", job,
                    "--recovery", recovery, "-np", "2", "--mca", "threads_pthreads_yield_strategy", "nanosleep",
                    "-x", "MPIRUN_FT_CHECKPOINT_EVERY=5"));
            args.addAll(MpiJobs.java(List.of(), RollbackRank.class, "1000", "60", "150"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream both = new PrintStream(out, true, StandardCharsets.UTF_8);
            CliContext context = new CliContext(both, both, null, Map.of(), DaemonClient::new, Optional.empty(), Clock.systemUTC());
            CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> MpirunFtCli.execute(args.toArray(String[]::new), context));
            // Past a few committed epochs, so there is one to return to.
            FakeMpirun.waitUntil(BOUND_SECONDS * 1000, "iteration 12 of the job", () -> out.toString(StandardCharsets.UTF_8).contains("ITER 12"));
            cluster.kill("node2");
            int code = status.get(BOUND_SECONDS, TimeUnit.SECONDS);
            return new Run(code, out, checkpoints.resolve(job).resolve(LaunchSettings.EVENT_LOG_NAME));
        }
    }

    /** mpirun as the head node runs it: the launcher itself runs on the host. */
    private Path mpirunOnHead(SimulatedCluster cluster) throws IOException {
        Path script = dir.resolve("mpirun");
        Files.writeString(script, "#!/usr/bin/env bash\nexec env MPIRUN_FT_CLUSTER=" + cluster.name() + " "
                + SimulatedCluster.repoRoot().resolve("scripts/cluster") + " exec head -- mpirun \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
