package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.scheduler.RecoveryMode;

/** A job whose epochs never reach shared storage is told, at its start, that a relaunch would begin again. */
class RelaunchWarningTest {
    private static LaunchSettings settings(String levels, RecoveryMode mode) {
        return LaunchSettings.builder().job("j").program(java.util.List.of("a.out")).recovery(mode)
                .checkpointLevels(StorageLevels.parse("--checkpoint-levels", levels)).build();
    }

    @Test
    void levelsWithoutSharedStorageWarnThatARelaunchStartsOver() {
        assertEquals(Optional.empty(), JobSession.relaunchWarning(settings("local,shared", RecoveryMode.RESTART)));
        assertEquals(Optional.empty(), JobSession.relaunchWarning(settings("partner,shared:8", RecoveryMode.PAUSE)));
        assertEquals(Optional.of("--checkpoint-levels partner puts nothing on shared storage, so a relaunch (--recovery restart)"
                + " would start the job from its first iteration"), JobSession.relaunchWarning(settings("partner", RecoveryMode.RESTART)));
        assertTrue(JobSession.relaunchWarning(settings("partner,local", RecoveryMode.PAUSE)).orElseThrow()
                .contains("a relaunch (a pause's fallback) would start the job from its first iteration"));
    }
}
