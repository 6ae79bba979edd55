package org.mpirunft.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CheckpointIntervalTest {
    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    /** Daly's worked examples (checkpoint 5 min; restart 10 min does not enter the optimum). */
    @Test
    void matchesDalysPublishedExamples() {
        assertMinutes(117, 0.5, CheckpointInterval.optimal(FIVE_MINUTES, Duration.ofHours(24)));
        assertMinutes(57, 0.5, CheckpointInterval.optimal(FIVE_MINUTES, Duration.ofHours(6)));
        assertMinutes(9.1, 0.05, CheckpointInterval.optimal(FIVE_MINUTES, Duration.ofMinutes(15)));
    }

    @Test
    void youngIsTheFirstOrderTerm() {
        assertMinutes(120, 0.001, CheckpointInterval.young(FIVE_MINUTES, Duration.ofHours(24)));
    }

    @Test
    void aCheckpointCostingMoreThanTwiceTheMtbfMeansCheckpointEveryMtbf() {
        assertEquals(Duration.ofMinutes(2), CheckpointInterval.optimal(FIVE_MINUTES, Duration.ofMinutes(2)));
    }

    @Test
    void autoUsesTheConfiguredMtbfUntilFailuresAreObservedAndAveragesCosts() {
        AutoInterval auto = new AutoInterval(Duration.ofHours(24), FIVE_MINUTES);
        assertMinutes(117, 0.5, auto.interval());
        auto.checkpointMeasured(Duration.ofMinutes(5));
        auto.checkpointMeasured(Duration.ofMinutes(5));
        assertEquals(FIVE_MINUTES, auto.cost());
        auto.failureObserved(Duration.ofHours(6));
        assertEquals(Duration.ofHours(6), auto.mtbf(), "one failure in 6 h of running");
        assertMinutes(57, 0.5, auto.interval());
        auto.checkpointMeasured(Duration.ofMinutes(15));
        assertEquals(Duration.ofMinutes(8), auto.cost(), "0.3 * 15 + 0.7 * 5 minutes");
    }

    @Test
    void rejectsNonPositiveInputs() {
        assertThrows(IllegalArgumentException.class, () -> CheckpointInterval.optimal(Duration.ZERO, Duration.ofHours(1)));
        assertThrows(IllegalArgumentException.class, () -> CheckpointInterval.optimal(FIVE_MINUTES, Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> CheckpointInterval.fixed(Duration.ZERO));
    }

    private static void assertMinutes(double expected, double tolerance, Duration actual) {
        assertEquals(expected, actual.toNanos() / 60e9, tolerance, "interval " + actual);
    }
}
