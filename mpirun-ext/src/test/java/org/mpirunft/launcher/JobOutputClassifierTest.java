package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class JobOutputClassifierTest {
    private final JobOutputClassifier classifier = new JobOutputClassifier(List.of(Pattern.compile("VERIFICATION SUCCESSFUL")));

    @Test
    void readsPrrtesLostRankAndLostDaemonLines() {
        assertEquals(Optional.of(new JobSignal.RankLost(2, "node3",
                        "prterun noticed that process rank 2 with PID 4242 on node node3 exited on signal 9 (Killed).")),
                classifier.classify("prterun noticed that process rank 2 with PID 4242 on node node3 exited on signal 9 (Killed)."));
        assertEquals(Optional.of(new JobSignal.RuntimeLost("", "PRTE has lost communication with a remote daemon.")),
                classifier.classify("PRTE has lost communication with a remote daemon."));
        assertEquals(Optional.of(new JobSignal.RuntimeLost("node2", "  Remote daemon: [prterun-head-6406@0,2] on node node2")),
                classifier.classify("  Remote daemon: [prterun-head-6406@0,2] on node node2"), "the next line of PRRTE 5's message");
    }

    @Test
    void readsNoneOfTheRankLibrarysOwnLinesWhichTravelOnTheRankChannel() {
        assertTrue(classifier.classify(" VERIFICATION SUCCESSFUL").orElseThrow() instanceof JobSignal.ProgramFinished,
                "a program's own done line, when configured");
        for (String line : List.of("[mpirun-ft] finished job=j1", "[mpirun-ft] recovered replaced=[2] epoch=4 iteration=40 total_ms=9",
                "Exception in thread \"main\" org.mpirunft.bridge.BridgeException: rank 1: recovery failed: MPI_ERR_PROC_FAILED",
                "iteration 40 residual 1e-9")) {
            assertEquals(Optional.empty(), classifier.classify(line), line);
        }
    }

    /**
     * A relaunch whose plan names a node lost after the decision: PRRTE cannot start its daemon
     * there and says so in a message whose "Remote host:" line names the node. That is the node's
     * loss (scripts/chaos, seed 102, job 2: without it, mpirun's 255 ended the job as failed). A
     * "Remote host:" line outside that message names nothing lost.
     */
    @Test
    void readsPrrtesDaemonThatNeverReportedBackAsTheLossOfItsNode() {
        List<String> message = List.of(
                "------------------------------------------------------------",
                "A daemon failed to report back after being spawned. This could",
                "be due to several factors, including inability to find the",
                "daemon executable, or the executable was unable to find its",
                "required supporting libraries. In some cases, the daemon was",
                "able to execute, but was unable to complete a TCP connection",
                "back to prterun:",
                "  Local host:    head",
                "  Remote host:   spare2",
                "  Daemon exit status: 255");
        List<JobSignal> signals = message.stream().map(l -> classifier.classify(JobRunner.Stream.STDERR, l))
                .flatMap(java.util.Optional::stream).toList();
        assertEquals(List.of(new JobSignal.RuntimeLost("", message.get(1)), new JobSignal.RuntimeLost("spare2", message.get(8))), signals);
        assertEquals(Optional.empty(), classifier.classify(JobRunner.Stream.STDERR, "  Remote host:   node3"),
                "outside PRRTE's message, a remote host is no lost node");
        classifier.classify(JobRunner.Stream.STDOUT, message.get(1));
        assertEquals(Optional.empty(), classifier.classify(JobRunner.Stream.STDERR, "  Remote host:   node3"),
                "the message on one stream says nothing of the other's lines");
    }
}
