package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class FailureScheduleTest {
    private static List<Long> draws(long seed, int n) {
        FailureSchedule schedule = new FailureSchedule(seed, Duration.ofSeconds(20));
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(schedule.nextGap().toMillis());
            out.add((long) schedule.nextVictim(4));
        }
        return out;
    }

    @Test
    void theSameSeedGivesTheSameGapsAndVictims() {
        assertEquals(draws(7, 20), draws(7, 20));
        assertNotEquals(draws(7, 20), draws(8, 20));
        assertEquals(7, FailureSchedule.seedOf(7, 1), "repeat 1 uses the seed itself");
        assertEquals(9, FailureSchedule.seedOf(7, 3));
    }

    @Test
    void gapsAreExponentialWithTheMtbfAsMean() {
        FailureSchedule schedule = new FailureSchedule(1, Duration.ofSeconds(20));
        int n = 200_000;
        double sum = 0;
        int belowMean = 0;
        for (int i = 0; i < n; i++) {
            double seconds = schedule.nextGap().toNanos() / 1e9;
            assertTrue(seconds >= 0);
            sum += seconds;
            belowMean += seconds < 20 ? 1 : 0;
        }
        assertEquals(20, sum / n, 0.2, "mean within 1% of the MTBF");
        // P(X < mean) = 1 - 1/e for an exponential distribution (0.5 for a uniform or normal one).
        assertEquals(1 - Math.exp(-1), (double) belowMean / n, 0.005);
    }

    @Test
    void victimsAreEveryRankButRankZero() {
        FailureSchedule schedule = new FailureSchedule(3, Duration.ofSeconds(1));
        TreeSet<Integer> seen = new TreeSet<>();
        for (int i = 0; i < 1000; i++) {
            seen.add(schedule.nextVictim(4));
        }
        assertEquals(List.of(1, 2, 3), List.copyOf(seen));
        assertThrows(IllegalArgumentException.class, () -> schedule.nextVictim(1));
    }
}
