package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.rank.RankMessage;

class FlushTurnsTest {
    private final List<RankMessage> sent = new CopyOnWriteArrayList<>();
    private final AtomicBoolean reachable = new AtomicBoolean(true);

    private FlushTurns turns(Duration bound) {
        return new FlushTurns("job", 3, sent::add, reachable::get, bound);
    }

    private static CompletableFuture<Boolean> await(FlushTurns turns, long epoch) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return turns.awaitTurn(epoch);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aRankAsksForItsNodesTurnAndWaitsForTheGrant() throws Exception {
        FlushTurns turns = turns(Duration.ofMinutes(1));
        CompletableFuture<Boolean> turn = await(turns, 4);
        while (sent.isEmpty()) {
            Thread.sleep(1);
        }
        assertEquals(new RankMessage.FlushWanted(RankMessage.VERSION, "job", 3, 4), sent.getFirst());
        turns.granted(3);
        Thread.sleep(50);
        assertFalse(turn.isDone(), "a grant of an older epoch is not this epoch's turn");
        turns.granted(4);
        assertTrue(turn.get(10, TimeUnit.SECONDS));
        turns.done(4);
        assertEquals(new RankMessage.FlushDone(RankMessage.VERSION, "job", 3, 4), sent.getLast());
    }

    @Test
    void aGrantThatCameFirstIsNotWaitedForAgain() throws Exception {
        FlushTurns turns = turns(Duration.ofMinutes(1));
        turns.granted(5);
        assertTrue(turns.awaitTurn(5), "another rank of the node asked first; the turn is on");
        assertTrue(sent.isEmpty(), "no second request: " + sent);
    }

    @Test
    void aDiscardedEpochEndsTheWaitWithoutATurn() throws Exception {
        FlushTurns turns = turns(Duration.ofMinutes(1));
        CompletableFuture<Boolean> turn = await(turns, 6);
        while (sent.isEmpty()) {
            Thread.sleep(1);
        }
        turns.discard(6);
        assertFalse(turn.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aGrantThatDoesNotComeEndsTheWaitAfterTheBoundOrWhenTheDaemonIsGone() throws Exception {
        long start = System.nanoTime();
        assertTrue(turns(Duration.ofMillis(100)).awaitTurn(7), "copies anyway");
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(100).toNanos());
        reachable.set(false);
        start = System.nanoTime();
        assertTrue(turns(Duration.ofMinutes(10)).awaitTurn(8));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "no wait for a daemon that is gone");
    }
}
