package org.mpirunft.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;

class PlacementTest {
    private static final InetSocketAddress CONTROL = InetSocketAddress.createUnresolved("localhost", 7000);

    @Test
    void choosesTheLeastLoadedSpare() {
        List<Member> alive = List.of(compute("node1", 1, 0.5), spare("spare1", 0, 3.0), spare("spare2", 0, 0.2),
                spare("spare3", 1, 0.0));
        assertEquals("spare2", new LeastLoadedSpare().chooseSpare(alive, Set.of()).orElseThrow().name());
    }

    @Test
    void anUnknownLoadCountsAsTheHighest() {
        List<Member> alive = List.of(new Member("a", NodeMetadata.spare("spare1", 1, CONTROL), NodeLoad.UNKNOWN),
                spare("spare2", 0, 7.5));
        assertEquals("spare2", new LeastLoadedSpare().chooseSpare(alive, Set.of()).orElseThrow().name());
    }

    @Test
    void neverBooksASpareTwice() {
        List<Member> alive = List.of(spare("spare1", 0, 0.1), spare("spare2", 0, 0.2));
        Placement placement = new Placement(new LeastLoadedSpare(), NoSpareAction.STOP_JOB);
        Placement.Result two = placement.place(List.of(3, 5), alive, Set.of());
        assertEquals(Map.of(3, "spare1", 5, "spare2"), two.nodeByRank(), "two losses, two distinct spares");
        Placement.Result again = placement.place(List.of(1), alive, Set.of("spare1"));
        assertEquals(Map.of(1, "spare2"), again.nodeByRank(), "a booked spare is skipped");
        Placement.Result none = placement.place(List.of(2), alive, Set.of("spare1", "spare2"));
        assertFalse(none.placed());
        assertTrue(none.stopReason().orElseThrow().contains("no free spare for rank 2"), none.stopReason().orElseThrow());
    }

    @Test
    void withoutSparesUsesTheLeastLoadedComputeNodeWithAFreeSlotWhenConfigured() {
        List<Member> alive = List.of(compute("node1", 4, 0.1), compute("node2", 1, 0.1), compute("node3", 2, 0.9));
        Placement placement = new Placement(new LeastLoadedSpare(), NoSpareAction.USE_COMPUTE);
        // node1 is full (4 of 4 slots), node2 has 1 of 4 in use, node3 2 of 4.
        assertEquals(Map.of(0, "node2"), placement.place(List.of(0), alive, Set.of()).nodeByRank());
    }

    @Test
    void shrinkPlacesEveryLostRankOrNone() {
        List<Member> alive = List.of(spare("spare1", 0, 0.5), spare("spare2", 0, 0.1));
        Placement placement = new Placement(new LeastLoadedSpare(), NoSpareAction.SHRINK);
        Placement.Result both = placement.place(List.of(1, 2), alive, Set.of());
        assertEquals(Map.of(1, "spare2", 2, "spare1"), both.nodeByRank(), "spares for every lost rank: a pause");
        assertFalse(both.shrinks());
        Placement.Result one = placement.place(List.of(1, 2), alive, Set.of("spare2"));
        assertTrue(one.placed() && one.shrinks(), "one spare for two lost ranks: the job goes on without both");
        assertEquals(Map.of(), one.nodeByRank());
        Placement.Result move = placement.placeEvery(List.of(1, 2), alive, Set.of("spare2"));
        assertFalse(move.placed(), "a move or a restart cannot shrink");
        assertTrue(move.stopReason().orElseThrow().contains("only a recovery in place"), move.stopReason().orElseThrow());
    }

    @Test
    void unknownPolicyNamesAreRefusedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplacementPolicies.byName("random"));
        assertTrue(e.getMessage().contains("least-loaded-spare"), e.getMessage());
        assertEquals(LeastLoadedSpare.NAME, ReplacementPolicies.byName(LeastLoadedSpare.NAME).name());
    }

    private static Member spare(String name, int slotsInUse, double load) {
        return new Member(name + "-id", NodeMetadata.spare(name, 4, CONTROL), new NodeLoad(load, slotsInUse));
    }

    private static Member compute(String name, int slotsInUse, double load) {
        return new Member(name + "-id", NodeMetadata.compute(name, 4, CONTROL), new NodeLoad(load, slotsInUse));
    }
}
