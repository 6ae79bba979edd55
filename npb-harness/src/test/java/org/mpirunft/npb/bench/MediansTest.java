package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MediansTest {
    @Test
    void oddCountsTakeTheMiddleAndEvenCountsAverageTheMiddleTwo() {
        assertEquals(3.0, Medians.of(List.of(9.0, 1.0, 3.0)));
        assertEquals(2.5, Medians.of(List.of(4.0, 1.0, 2.0, 3.0)));
        assertEquals(7.0, Medians.of(List.of(7.0)));
    }

    @Test
    void missingValuesAreLeftOutAndNothingIsNull() {
        assertEquals(2.0, Medians.of(Arrays.asList(null, 2.0, Double.NaN)));
        assertNull(Medians.of(Arrays.asList(null, null)));
        assertNull(Medians.of(List.of()));
    }
}
