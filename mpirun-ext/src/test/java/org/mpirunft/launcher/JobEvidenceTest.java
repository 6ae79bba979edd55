package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JobEvidenceTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private final JobEvidence evidence = new JobEvidence();

    @Test
    void aCleanRunSucceeds() {
        assertEquals(new JobOutcome(JobOutcome.Status.SUCCEEDED, 0, 0, ""), evidence.judge(0, false, BOUND, Optional.empty()));
    }

    @Test
    void lostRanksWithoutRecoveryFailTheJobEvenWhenMpirunReturnsZero() {
        evidence.failureSeen("mpirun lost a node daemon");
        JobOutcome outcome = evidence.judge(0, false, BOUND, Optional.empty());
        assertEquals(JobOutcome.Status.RANKS_LOST, outcome.status());
        assertEquals(ExitCode.RANKS_LOST.code(), outcome.exitCode());
        assertTrue(outcome.reason().contains("mpirun returned 0 regardless"), outcome.reason());
    }

    @Test
    void aRecoverySettlesEveryFailureSeenBeforeIt() {
        evidence.failureSeen("rank 2 on node3 died");
        evidence.failureSeen("failure f1");
        evidence.recovered();
        assertEquals(JobOutcome.Status.SUCCEEDED, evidence.judge(0, false, BOUND, Optional.empty()).status());
        evidence.failureSeen("failure f2");
        assertEquals(JobOutcome.Status.RANKS_LOST, evidence.judge(0, false, BOUND, Optional.empty()).status(),
                "a failure after the last recovery is not settled by it");
    }

    @Test
    void aFailedRecoveryIsTerminalWhateverFollows() {
        evidence.terminalFailure("rank 1: recovery failed: x");
        evidence.recovered();
        assertEquals(JobOutcome.Status.RANKS_LOST, evidence.judge(0, false, BOUND, Optional.empty()).status());
    }

    @Test
    void theProgramsOwnStatusPassesThrough() {
        JobOutcome outcome = evidence.judge(3, false, BOUND, Optional.empty());
        assertEquals(new JobOutcome(JobOutcome.Status.FAILED, 3, 3, "mpirun exited with status 3"), outcome);
    }

    @Test
    void mpirunStoppedAfterTheProgramFinishedIsASuccess() {
        evidence.programFinished();
        JobOutcome outcome = evidence.judge(143, true, BOUND, Optional.empty());
        assertEquals(JobOutcome.Status.SUCCEEDED, outcome.status());
        assertEquals(0, outcome.exitCode());
        assertTrue(outcome.reason().contains("did not exit within 1m"), outcome.reason());
    }

    @Test
    void aStopWinsOverEverything() {
        evidence.failureSeen("x");
        JobOutcome outcome = evidence.judge(143, false, BOUND, Optional.of("no spare left for rank 2"));
        assertEquals(JobOutcome.Status.STOPPED, outcome.status());
        assertEquals(ExitCode.JOB_STOPPED.code(), outcome.exitCode());
        assertTrue(outcome.reason().startsWith("job stopped: no spare left for rank 2"), outcome.reason());
    }
}
