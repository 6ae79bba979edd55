package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.rank.RankMessage;

/** The ranks' rule for when to move: every rank decides alike from the agreed maxima of their offers. */
class MigrationOrdersTest {
    private static final RankMessage.MigrationOrder ONE = order(1);

    @Test
    void ranksMoveOnlyOnceEveryRankHoldsTheOrder() {
        MigrationOrders a = new MigrationOrders(() -> 0);
        MigrationOrders b = new MigrationOrders(() -> 0);
        a.ordered(ONE);
        assertEquals(List.of(Optional.empty(), Optional.empty()), decideAll(a, b), "b has not got it yet");
        b.ordered(ONE);
        assertEquals(List.of(Optional.of(ONE), Optional.of(ONE)), decideAll(a, b));
        a.served(1);
        b.served(1);
        assertEquals(List.of(Optional.empty(), Optional.empty()), decideAll(a, b), "served: never again");
    }

    @Test
    void anOrderOneRankSawWithdrawnIsServedWithoutAMoveEverywhere() {
        MigrationOrders a = new MigrationOrders(() -> 0);
        MigrationOrders b = new MigrationOrders(() -> 0);
        a.ordered(ONE);
        b.ordered(ONE);
        a.ordered(withdrawal(1));
        assertTrue(a.endOf(1).isDone(), "a move under way for it stops waiting");
        assertEquals(List.of(Optional.empty(), Optional.empty()), decideAll(a, b));
        b.ordered(order(2));
        a.ordered(order(2));
        assertEquals(List.of(Optional.of(order(2)), Optional.of(order(2))), decideAll(a, b), "the next order moves");
    }

    @Test
    void aRecoveryDropsAnOrderAndAReplacementHoldsTheNextBackUntilItHasIt() {
        MigrationOrders survivor = new MigrationOrders(() -> 0);
        survivor.ordered(ONE);
        survivor.recovered();
        MigrationOrders replacement = new MigrationOrders(() -> 0);
        assertEquals(List.of(Optional.empty(), Optional.empty()), decideAll(survivor, replacement));
        survivor.ordered(order(2));
        assertEquals(List.of(Optional.empty(), Optional.empty()), decideAll(survivor, replacement), "the replacement has not got it");
        replacement.ordered(order(2));
        assertEquals(List.of(Optional.of(order(2)), Optional.of(order(2))), decideAll(survivor, replacement));
    }

    @Test
    void aSpareThatTookAMovedRanksPlaceGoesOnWhereItsOrdersStood() {
        MigrationOrders stayed = new MigrationOrders(() -> 0);
        stayed.ordered(ONE);
        stayed.served(1);
        MigrationOrders spare = new MigrationOrders(() -> 0);
        spare.continueFrom(1);
        // The scheduler's record of the move reaches both as an order with no moving rank.
        stayed.ordered(withdrawal(1));
        spare.ordered(withdrawal(1));
        assertEquals(List.of(Optional.empty(), Optional.empty()), decideAll(stayed, spare));
        assertTrue(spare.endOf(1).isDone());
    }

    @Test
    void aPauseOrderEndsTheWaitOfAMoveUnderWay() {
        MigrationOrders rank = new MigrationOrders(() -> 0);
        rank.ordered(ONE);
        assertFalse(rank.endOf(1).isDone());
        rank.paused();
        assertTrue(rank.endOf(1).isDone());
        assertFalse(rank.endOf(2).isDone(), "a later order is not affected");
    }

    /** One safe point: each rank's offer, their maxima as the allreduce gives them, each rank's decision. */
    private static List<Optional<RankMessage.MigrationOrder>> decideAll(MigrationOrders... ranks) {
        long[] agreed = new long[MigrationOrders.AGREED];
        java.util.Arrays.fill(agreed, Long.MIN_VALUE);
        for (MigrationOrders rank : ranks) {
            long[] offer = rank.offer();
            for (int i = 0; i < agreed.length; i++) {
                agreed[i] = Math.max(agreed[i], offer[i]);
            }
        }
        return java.util.Arrays.stream(ranks).map(rank -> rank.decide(agreed.clone())).toList();
    }

    private static RankMessage.MigrationOrder order(long seq) {
        return new RankMessage.MigrationOrder(RankMessage.VERSION, "job", seq, Map.of(1, "node2"), Map.of(1, "spare1"));
    }

    private static RankMessage.MigrationOrder withdrawal(long seq) {
        return new RankMessage.MigrationOrder(RankMessage.VERSION, "job", seq, Map.of(), Map.of());
    }
}
