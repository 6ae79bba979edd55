package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveriesTest {
    @Test
    void splitsAPauseIntoDetectionDecisionRollbackReplacementStartAndLoad() {
        Recoveries.Pause pause = Recoveries.pause(Fixtures.INJECTED, Fixtures.pauseOutput(), Fixtures.pauseEvents());
        assertEquals(540, pause.detectionMs(), 1e-9, "injection to the rank's seen_at_ms");
        assertEquals(510, pause.launcherDetectionMs(), 1e-9, "injection to the first failure event");
        assertEquals(500, pause.decisionMs(), 1e-9, "first failure event to the decision");
        assertEquals(11.8, pause.rollbackMs(), 1e-9);
        assertEquals(250.0 + 66.2 + 2800.0, pause.replacementStartMs(), 1e-9);
        assertEquals(456.2, pause.stateLoadMs(), 1e-9);
        assertEquals(4500, pause.recoveryMs(), 1e-9, "back at work: the first iteration line after the recovery line");
        assertEquals(List.of(2), pause.replaced());
        assertEquals(40, pause.iteration());
        assertEquals(150.0, pause.setupMs(), 1e-9, "the replacement's setup, from the recovery line");
        assertEquals(60.0, pause.transferMs(), 1e-9, "the replaced rank's state transfer, not another rank's");
        assertEquals(2000.0, pause.transferMBps(), 1e-9);
        assertEquals("shared", pause.transferFrom());
        assertEquals(4000.0, pause.withStorageMBps(4000.0).storageMBps());
    }

    @Test
    void measuresARestartFromInjectionToTheRelaunchedJobsFirstIteration() {
        Recoveries.Restart restart = Recoveries.restart(Fixtures.INJECTED, Fixtures.restartOutput(), Fixtures.restartEvents());
        assertEquals(470, restart.detectionMs(), 1e-9);
        assertEquals(50, restart.decisionMs(), 1e-9);
        assertEquals(456.19, restart.stopMs(), 1e-9);
        assertEquals(8900 - 1020, restart.relaunchMs(), 1e-9);
        assertEquals(8900, restart.recoveryMs(), 1e-9);
        assertEquals(40, restart.iteration());
    }

    @Test
    void aPauseWithoutARecoveryLineFailsLoudly() {
        List<TimedLine> lines = new ArrayList<>(Fixtures.pauseOutput().lines());
        lines.removeIf(l -> l.text().startsWith("[mpirun-ft] recovered"));
        BenchException e = assertThrows(BenchException.class,
                () -> Recoveries.pause(Fixtures.INJECTED, new NpbOutput(lines), Fixtures.pauseEvents()));
        assertTrue(e.getMessage().contains("no in-place recovery"), e.getMessage());
    }

    @Test
    void aPauseThatFellBackToARestartDoesNotCountAsAPause() {
        List<String> events = new ArrayList<>();
        Fixtures.pauseEvents().all().forEach(e -> events.add(e.fields().toString()));
        events.add(Fixtures.event(2000, "fallback", "\"failureId\":\"2@node3\",\"reason\":\"no spare\""));
        BenchException e = assertThrows(BenchException.class,
                () -> Recoveries.pause(Fixtures.INJECTED, Fixtures.pauseOutput(), LauncherEvents.parse(events, "test")));
        assertTrue(e.getMessage().contains("no spare"), e.getMessage());
    }

    @Test
    void aRestartThatNeverRelaunchedFailsLoudly() {
        List<TimedLine> lines = new ArrayList<>(Fixtures.restartOutput().lines());
        lines.remove(3);
        BenchException e = assertThrows(BenchException.class,
                () -> Recoveries.restart(Fixtures.INJECTED, new NpbOutput(lines), Fixtures.restartEvents()));
        assertTrue(e.getMessage().contains("not launched a second time"), e.getMessage());
    }
}
