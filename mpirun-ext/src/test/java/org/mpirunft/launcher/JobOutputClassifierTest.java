package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.RecoveryReport;

class JobOutputClassifierTest {
    private final JobOutputClassifier classifier = new JobOutputClassifier(List.of(Pattern.compile("VERIFICATION SUCCESSFUL")));

    @Test
    void readsTheRecoveredLineExactlyAsTheRankLibraryPrintsIt() {
        String line = new RecoveryReport(new int[] {2, 5}, 4, 40, 1700000000000L, 10.9, 246.5, 39.5, 1655.8, 666.2, 2621.1).toLine();
        JobSignal signal = classifier.classify(line).orElseThrow();
        assertEquals(new JobSignal.Recovered(List.of(2, 5), 4, 40, 2621.1, line), signal);
    }

    @Test
    void readsTheRecoveredLineBehindMpirunsOutputTag() {
        String line = "[1,0]<stdout>: " + new RecoveryReport(new int[0], 0, -1, 1, 1, 0, 0, 1, 1, 3).toLine();
        JobSignal.Recovered r = (JobSignal.Recovered) classifier.classify(line).orElseThrow();
        assertEquals(List.of(), r.replacedRanks(), "a pause where nobody was lost");
        assertEquals(-1, r.iteration());
    }

    @Test
    void aRecoveredLineEchoedByTheProgramLaterIsNotARecovery() {
        String line = new RecoveryReport(new int[] {1}, 2, 20, 1, 1, 1, 1, 1, 1, 5).toLine();
        assertEquals(Optional.empty(), classifier.classify("REPORT " + line), "RollbackRank reports its recoveries at the end");
    }

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
    void tellsARestartableRecoveryFailureFromAnUnloadableCheckpoint() {
        JobSignal.RecoveryFailed failed = (JobSignal.RecoveryFailed) classifier.classify(
                "Exception in thread \"main\" org.mpirunft.bridge.BridgeException: rank 1: recovery failed: MPI_ERR_PROC_FAILED").orElseThrow();
        assertTrue(failed.restartable());
        JobSignal.RecoveryFailed none = (JobSignal.RecoveryFailed) classifier.classify(
                "rank 0: no committed checkpoint of job j can be loaded by every rank (tried epochs [3, 2]); the job cannot roll back and stops")
                .orElseThrow();
        assertEquals(false, none.restartable());
    }

    @Test
    void knowsWhenTheProgramHasFinished() {
        assertTrue(classifier.classify("[mpirun-ft] rank 3: MPI_Finalize did not return within PT30S; the run had completed, exiting")
                .orElseThrow() instanceof JobSignal.ProgramFinished);
        assertTrue(classifier.classify("[mpirun-ft] finished job=j1").orElseThrow() instanceof JobSignal.ProgramFinished);
        assertTrue(classifier.classify(" VERIFICATION SUCCESSFUL").orElseThrow() instanceof JobSignal.ProgramFinished,
                "a program's own done line, when configured");
        assertEquals(Optional.empty(), classifier.classify("[mpirun-ft] INFO: rank 0: pause order 12 (failure f)"));
        assertEquals(Optional.empty(), classifier.classify("iteration 40 residual 1e-9"));
    }
}
