package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.common.JsonLines;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;

/** What the daemon gives the warm spares: the job's end from the replicated log, a call from the survivors' root. */
class DaemonCoreOrdersTest {
    private static final int V = RankMessage.VERSION;

    @Test
    void theProgramsEndBecomesTheSparesJobEnding() {
        JobTransition finished = new JobTransition(new SchedulerUpdate.ProgramFinished(SchedulerUpdate.VERSION, "job"), job(), false);
        assertEquals(Optional.of(new RankMessage.JobEnding(V, "job")), RankOrders.toOrder(finished),
                "the spares finalize with the ranks; no PMIx publish of FINISH");
    }

    @Test
    void aCallGoesToTheDaemonOfEachCalledSparesNodeOnce() {
        RankMessage.SpareCall call = new RankMessage.SpareCall(V, "job", "2@node3#1", 5, List.of(6, 4, 5),
                Map.of(4, "spare1", 5, "spare2", 6, "spare1"), 0, 99);
        SortedSet<String> nodes = RankReports.spareCallNodes(call);
        assertEquals(new TreeSet<>(List.of("spare1", "spare2")), nodes);
    }

    @Test
    void theCallCrossesBetweenDaemonsUnchanged() {
        RankMessage.SpareCall call = new RankMessage.SpareCall(V, "job", "2@node3#1", -3, List.of(5), Map.of(5, "spare1"), 2, 99);
        PeerMessage message = new PeerMessage.CallSpares(PeerMessage.VERSION, call);
        assertEquals(message, JsonLines.decode(JsonLines.encode(message), PeerMessage.class));
    }

    private static JobRecord job() {
        return new JobRecord("job", "head", List.of("node1", "node2"), List.of("spare1"), JobState.RUNNING, RecoveryMode.PAUSE,
                CheckpointSchedule.parse("schedule", "2s"), 10, 1, 0, 0, 0, 0, Optional.empty(), Optional.empty(), true,
                JobRecord.Flush.NONE, 0, Optional.empty(), JobOwner.ROOT, List.of());
    }
}
