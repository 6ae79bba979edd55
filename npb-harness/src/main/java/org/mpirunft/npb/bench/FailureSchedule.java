package org.mpirunft.npb.bench;

import java.time.Duration;
import java.util.Random;

/**
 * When the {@code daly} variant kills a node, and whose: failures arrive as a Poisson process,
 * so the gaps between them are exponentially distributed with mean MTBF ({@code -M ln(1 - U)}
 * for U uniform in [0, 1)), drawn from a seeded {@link Random} so that a run can be repeated.
 * Each storage configuration of a repeat gets the same draws (common random numbers: their
 * difference is then the storage's, not the luck of the draw); each repeat other ones.
 *
 * <p>The victim is a rank other than rank 0: rank 0 prints NPB's timed region, and a
 * replacement rank 0 would time only the part of the run after its own start.
 */
public final class FailureSchedule {
    private final Random random;
    private final double meanNanos;

    public FailureSchedule(long seed, Duration mean) {
        if (mean.isZero() || mean.isNegative()) {
            throw new IllegalArgumentException("the mean time between failures must be > 0, got " + mean);
        }
        this.random = new Random(seed);
        this.meanNanos = mean.toNanos();
    }

    /** The seed of repeat {@code repeat} (1-based) of a bench run with seed {@code seed}. */
    public static long seedOf(long seed, int repeat) {
        return seed + repeat - 1;
    }

    /** The time from one failure (or the job's start) to the next. */
    public Duration nextGap() {
        // 1 - U is in (0, 1]: the logarithm is finite.
        return Duration.ofNanos(Math.round(-meanNanos * Math.log(1 - random.nextDouble())));
    }

    /** The rank whose node the next failure kills: uniform over ranks 1..{@code ranks}-1. */
    public int nextVictim(int ranks) {
        if (ranks < 2) {
            throw new IllegalArgumentException("the daly variant needs 2 or more ranks (rank 0 is never killed), got " + ranks);
        }
        return 1 + random.nextInt(ranks - 1);
    }
}
