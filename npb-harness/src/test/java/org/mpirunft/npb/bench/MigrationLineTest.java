package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ranks' migration line and the harness's record of a move, from a run's output and event log. */
class MigrationLineTest {
    private static final String LINE = "[mpirun-ft] migration seq=1 ranks=[1] to=[spare1] iteration=17 reach_ms=186.1 call_ms=81.5 "
            + "transfer_ms=13.5 rejoin_ms=115.3 total_ms=284.0 bytes=8087 start=warm";

    @Test
    void readsTheRanksLine() {
        MigrationLine moved = MigrationLine.parse(LINE).orElseThrow();
        assertEquals(new MigrationLine(1, 17, 186.1, 81.5, 13.5, 115.3, 284.0, 8087, "warm"), moved);
        assertTrue(MigrationLine.parse("[mpirun-ft] recovered replaced=[2] epoch=1").isEmpty());
    }

    @Test
    void aMoveIsTimedToRankZerosNextIterationAndAPauseInsteadIsRefused() {
        Instant ordered = Instant.parse("2026-11-28T01:00:00Z");
        NpbOutput output = new NpbOutput(List.of(new TimedLine(ordered.minusMillis(100), "[npb] iteration 16 of 40"),
                new TimedLine(ordered.plusMillis(500), LINE), new TimedLine(ordered.plusMillis(900), "[npb] iteration 17 of 40")));
        Recoveries.Migration moved = Recoveries.migration(ordered, output, new LauncherEvents(List.of()));
        assertEquals(284.0, moved.totalMs());
        assertEquals(900.0, moved.orderToWorkMs(), 1e-9);
        assertEquals(16, output.lastIterationAt(ordered));

        LauncherEvents paused = LauncherEvents.parse(List.of("{\"type\":\"pause\",\"time\":\"2026-11-28T01:00:01Z\"}"), "events");
        BenchException e = org.junit.jupiter.api.Assertions.assertThrows(BenchException.class,
                () -> Recoveries.migration(ordered, output, paused));
        assertTrue(e.getMessage().contains("ended in a 'pause'"), e.getMessage());
    }
}
