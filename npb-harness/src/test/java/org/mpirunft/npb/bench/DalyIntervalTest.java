package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DalyIntervalTest {
    @Test
    void isCloseToYoungForACheapCheckpointAndSlightlyBelowIt() {
        double young = DalyInterval.youngSeconds(1, 86400);
        double daly = DalyInterval.seconds(1, 86400);
        assertEquals(Math.sqrt(2 * 86400), young, 1e-9);
        // sqrt(2CM) (1 + sqrt(C/2M)/3 + C/18M) - C, by hand: 415.692 * 1.0008055 - 1
        assertEquals(415.692 * (1 + Math.sqrt(1 / 172800.0) / 3 + 1 / (18 * 86400.0)) - 1, daly, 1e-2);
        assertTrue(daly < young + 1 && daly > young - 1);
    }

    @Test
    void isTheMtbfWhenACheckpointCostsTwiceTheMtbf() {
        assertEquals(10, DalyInterval.seconds(20, 10));
    }

    @Test
    void overheadIsCostOverInterval() {
        assertEquals(2.0, DalyInterval.overheadPercent(2, 100), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> DalyInterval.seconds(0, 10));
    }

    @Test
    void modelEfficiencyMatchesDalysExpectedWallTimeByHand() {
        // tau / (M e^(R/M) (e^((tau+C)/M) - 1)) for tau 100, C 10, M 1000, R 50: 100 / (1000 * 1.051271 * 0.116278)
        assertEquals(0.818064, DalyInterval.modelEfficiency(100, 10, 1000, 50), 1e-6);
        assertEquals(0.907177, DalyInterval.modelEfficiency(60, 5, 3600, 30), 1e-6);
    }

    @Test
    void modelEfficiencyWithoutFailuresIsWorkOverWorkAndCheckpoints() {
        assertEquals(100.0 / 110, DalyInterval.modelEfficiency(100, 10, 1e12, 0), 1e-6, "M to infinity: tau / (tau + C)");
        assertTrue(DalyInterval.modelEfficiency(100, 10, 1000, 100) < DalyInterval.modelEfficiency(100, 10, 1000, 0),
                "a longer restart costs efficiency");
        assertThrows(IllegalArgumentException.class, () -> DalyInterval.modelEfficiency(0, 10, 1000, 0));
    }
}
