package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mpi.Intracomm;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.common.rank.RankMessage;

/** How a rank judges the scheduler's pause orders against who its peers are. */
class RankViewTest {
    private static final List<Peer> FOUR = List.of(peer(0, "node1"), peer(1, "node2"), peer(2, "node3"), peer(3, "node4"));
    /** node3's rank 2 lost, nobody placed: the job shrinks. */
    private static final RankMessage.PauseOrder NODE3_LOST = new RankMessage.PauseOrder(RankMessage.VERSION, "job", "2@node3", 1,
            Map.of(2, "node3"), Map.of());

    private final Effects mpi = new Effects();

    @Test
    void aSurvivorRenumberedByAShrinkBeforeItsPeersAreKnownStaysInTheJob() {
        // Rank 3 on node4: its shrink made it rank 2 of 3, and the order about the old rank 2
        // (node3) comes before the repaired world's peers do.
        RankView view = new RankView(new MigrationOrders(System::nanoTime), null, 3, FOUR.get(3).name(), FOUR, mpi);
        view.recoveryStarts();
        view.roundStarts();
        view.rank(2);

        view.pause(NODE3_LOST);
        assertEquals(List.of(), mpi.left, "the order is about node3's process, not this one");
        assertEquals(List.of(FOUR.get(2).name()), mpi.terminated, "node3's process is declared lost to MPI");

        view.repaired(List.of(FOUR.get(0), FOUR.get(1), FOUR.get(3)));
        assertEquals(List.of(), mpi.left);
        assertFalse(view.pauseRequested(), "the shrink served the order: it does not pause the repaired world again");
        assertEquals(List.of(FOUR.get(2).name()), mpi.terminated);
    }

    @Test
    void theProcessAnOrderNamesLeavesTheJob() {
        // node3 was cut off, not killed: its rank still runs and hears of the order.
        RankView view = new RankView(new MigrationOrders(System::nanoTime), null, 2, FOUR.get(2).name(), FOUR, mpi);
        view.pause(NODE3_LOST);
        assertEquals(List.of("rank 2: declared lost by pause order 2@node3#1"), mpi.left);
        assertEquals(List.of(), mpi.terminated, "it does not declare itself lost");
        assertEquals(0, mpi.revoked);
    }

    @Test
    void aSurvivorDeclaresTheLostRankAndRevokesItsWorld() {
        RankView view = new RankView(new MigrationOrders(System::nanoTime), null, 0, FOUR.get(0).name(), FOUR, mpi);
        view.pause(NODE3_LOST);
        assertEquals(List.of(), mpi.left);
        assertEquals(List.of(FOUR.get(2).name()), mpi.terminated);
        assertEquals(1, mpi.revoked);
        assertTrue(view.pauseRequested());

        view.pause(NODE3_LOST);
        assertEquals(1, mpi.revoked, "an order is judged once");
    }

    private static Peer peer(int rank, String node) {
        return new Peer(new Pmix.ProcessName("prterun-head-1@1", rank), node);
    }

    private static final class Effects implements RankView.MpiEffects {
        final List<Pmix.ProcessName> terminated = new ArrayList<>();
        final List<String> left = new ArrayList<>();
        int revoked;

        @Override
        public void declareTerminated(Pmix.ProcessName self, Pmix.ProcessName lost) {
            terminated.add(lost);
        }

        @Override
        public void revoke(Intracomm world) {
            revoked++;
        }

        @Override
        public void leave(String why) {
            left.add(why);
        }
    }
}
