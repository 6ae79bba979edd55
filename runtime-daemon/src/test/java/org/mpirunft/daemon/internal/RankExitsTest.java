package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.RecoveryMode;

/** Which ends of rank channels the daemon reports as a rank's death; the processes are real, and gone. */
class RankExitsTest {
    private static final int V = RankMessage.VERSION;

    @Test
    void aRankWhoseProcessIsGoneIsReportedLost() throws Exception {
        RankExits exits = new RankExits("node2", Duration.ofSeconds(2));
        RankMessage.Hello hello = new RankMessage.Hello(V, "job", 1, goneProcess(), false);
        exits.admitted(hello, Optional.of(runningPauseJob()));
        Optional<FailureReport> report = exits.ended(hello, job -> Optional.of(runningPauseJob()));
        assertTrue(report.isPresent(), "a rank of a running pause job whose process is gone died");
        assertEquals(Map.of(1, "node2"), report.get().lostRanks());
    }

    /**
     * An idle warm spare holds no rank: the end of its channel, its process gone (its node's
     * kill, or the job's end), is no rank's failure, and must not start a recovery of rank -1.
     */
    @Test
    void theEndOfAWarmSparesChannelIsNoRanksFailure() throws Exception {
        RankExits exits = new RankExits("spare1", Duration.ofSeconds(2));
        RankMessage.Hello spare = RankMessage.Hello.ofSpare("job", goneProcess(), 5);
        exits.admitted(spare, Optional.of(runningPauseJob()));
        assertEquals(Optional.empty(), exits.ended(spare, job -> Optional.of(runningPauseJob())));
    }

    private static long goneProcess() throws Exception {
        Process process = new ProcessBuilder("true").start();
        process.waitFor();
        return process.pid();
    }

    private static JobRecord runningPauseJob() {
        return new JobRecord("job", "head", List.of("node1", "node2"), List.of("spare1"), JobState.RUNNING, RecoveryMode.PAUSE,
                CheckpointSchedule.parse("schedule", "2s"), 10, 1, 0, 0, 0, 0, Optional.empty(), Optional.empty(), false,
                JobRecord.Flush.NONE, 0, Optional.empty(), JobOwner.ROOT, List.of());
    }
}
