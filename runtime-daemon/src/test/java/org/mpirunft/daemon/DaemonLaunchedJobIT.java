package org.mpirunft.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.ulfm.NodeLossSmokeRank;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.Wire;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;
import org.mpirunft.testkit.SimulatedCluster.NodeProcess;

/**
 * An Open MPI 5 Java job across four simulated nodes, its node daemons started by the nodes'
 * ftd daemons (no ssh), survives the loss of a whole node, ftd included: the survivors see the
 * failure through ULFM and the replacement runs in the spare's namespace. mpirun runs by its
 * absolute path, so every node daemon's command comes with PRRTE's prefix.
 */
class DaemonLaunchedJobIT {
    private static final Pattern READY = Pattern.compile("smoke: READY size=(\\d+) sum=(\\d+)");
    private static final Pattern FAILED_RANKS = Pattern.compile("smoke: FAILED-RANKS (\\[[0-9, ]*\\])");
    private static final Pattern RESULT = Pattern.compile("smoke: RESULT size=(\\d+) sum=(\\d+) expected=(\\d+) hosts=(\\S+)");
    private static final Duration START_BOUND = Duration.ofSeconds(90);
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(60);
    private static final Duration EXIT_BOUND = Duration.ofSeconds(45);
    private static final String JOB = "smoke4";

    @Test
    void jobLaunchedThroughDaemonsSurvivesWholeNodeLossOnTheSpare() throws Exception {
        Path daemons = Path.of(System.getProperty("mpirunft.repo", "..")).resolve("runtime-daemon/target/ftd").toAbsolutePath();
        SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 1, daemons);
        try (cluster) {
            List<String> mpirun = MpiJobs.mpirun(true, SimulatedCluster.FTD_AGENT, "node1:1,node2:1,node3:1,node4:1,spare1:1", 4,
                    MpiJobs.java(List.of(), NodeLossSmokeRank.class, "spare1"));
            // mpirun by its absolute path, as mpirun-ft runs it when MPI_HOME is set: PRRTE then
            // writes its prefix (PRTE_PREFIX=...;export PRTE_PREFIX;...) in front of each node
            // daemon's command, which the daemons must read into prted's environment.
            List<String> command = new ArrayList<>(List.of("env", "MPIRUN_FT_JOB=" + JOB,
                    "sh", "-c", "exec \"$MPI_HOME/bin/mpirun\" \"$@\"", "mpirun"));
            command.addAll(mpirun.subList(1, mpirun.size()));
            Process job = cluster.start("head", command);
            OutputWatcher output = OutputWatcher.watch(job.getInputStream(), "job");

            Matcher ready = output.await(READY, START_BOUND)
                    .orElseThrow(() -> new AssertionError("job never became ready; output:\n" + output.text()));
            assertEquals("4", ready.group(2), "allreduce of 1 over 4 ranks before the failure");

            // node2's daemon started Open MPI's node daemon for this job, and tracks the rank.
            ControlReply.StatusReport node2 = Wire.decode(cluster.exec("node2", "/ftc/ftd/bin/ftd", "status", "--json").strip(),
                    ControlReply.StatusReport.class);
            ControlReply.ProcessStatus prted = node2.processes().stream().filter(p -> p.command().equals("prted") && p.job().equals(JOB))
                    .findFirst().orElseThrow(() -> new AssertionError("node2's ftd must have started prted for the job: " + node2.processes()));
            // Nodes share the host's process table, so prted's environment is readable here.
            List<String> environment = List.of(Files.readString(Path.of("/proc", Long.toString(prted.pid()), "environ")).split("\0"));
            assertTrue(environment.stream().anyMatch(v -> v.startsWith("PRTE_PREFIX=/")),
                    "node2's prted must have PRTE_PREFIX from PRRTE's prefix: " + environment);
            assertTrue(node2.processes().stream().anyMatch(p -> p.command().equals("java") && p.job().equals(JOB)),
                    "node2's ftd must track rank 1: " + node2.processes());
            List<NodeProcess> before = cluster.processesOn("node2");

            cluster.kill("node2");
            assertEquals(List.of(), cluster.processesOn("node2"), "node2 must be empty after the kill, its ftd included");
            for (NodeProcess process : before) {
                assertTrue(NodeProcess.stopsWithin(process.pid(), Duration.ofSeconds(5)), "process " + process + " of node2 survived the kill, state "
                        + NodeProcess.state(process.pid()));
            }

            Matcher failed = output.await(FAILED_RANKS, RECOVERY_BOUND)
                    .orElseThrow(() -> new AssertionError("survivors never saw the failure; output:\n" + output.text()));
            assertEquals("[1]", failed.group(1), "ULFM must name rank 1, on node2");
            Matcher result = output.await(RESULT, RECOVERY_BOUND)
                    .orElseThrow(() -> new AssertionError("no result after the kill; output:\n" + output.text()));
            assertEquals("4", result.group(1), "the repaired world has the original size");
            assertEquals("30", result.group(2), "allreduce of (rank+1)^2 over 4 ranks on the repaired world");
            assertEquals("node1,node3,node4,spare1", result.group(4),
                    "the replacement's host name is the spare's: it runs in the spare's namespace");

            assertTrue(job.waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS), "job hung at exit; output:\n" + output.text());
            assertEquals(0, job.exitValue(), "mpirun exit status; output:\n" + output.text());
        }
        assertTrue(cluster.isGone(), "cluster down must leave no namespace behind");
    }
}
