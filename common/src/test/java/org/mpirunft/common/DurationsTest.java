package org.mpirunft.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void readsDurationsWithUnitsAndIso() {
        assertEquals(Duration.ofSeconds(30), Durations.parse("x", "30s"));
        assertEquals(Duration.ofMinutes(10), Durations.parse("x", "10m"));
        assertEquals(Duration.ofHours(1), Durations.parse("x", "1h"));
        assertEquals(Duration.ofDays(7), Durations.parse("x", "7d"), "an MTBF is written in days");
        assertEquals(Duration.ofMillis(500), Durations.parse("x", "500ms"));
        assertEquals(Duration.ofSeconds(90), Durations.parse("x", "PT1M30S"));
        assertEquals(Duration.ofSeconds(90), Durations.parse("x", " pt1m30s "), "ISO letters in any case, blanks around");
        assertEquals(Duration.ofSeconds(2), Durations.parse("x", "2S"));
    }

    @Test
    void aBadDurationNamesTheSettingAndTheFormsInOneLine() {
        for (String bad : new String[] {"soon", "10", "m", "", "1 hour", "5w", "PT"}) {
            BadValueException e = assertThrows(BadValueException.class, () -> Durations.parse("--stop-grace", bad));
            assertEquals("--stop-grace", e.setting());
            assertEquals("must be a duration such as 30s, 10m, 1h, 500ms or PT30S, got '" + bad + "'", e.problem());
            assertEquals("--stop-grace: " + e.problem(), e.getMessage());
        }
        assertThrows(BadValueException.class, () -> Durations.parse("x", null));
    }

    @Test
    void parsePositiveRefusesZeroAndNegative() {
        assertEquals(Duration.ofSeconds(1), Durations.parsePositive("x", "1s"));
        assertEquals("x: must be greater than 0, got '0s'",
                assertThrows(BadValueException.class, () -> Durations.parsePositive("x", "0s")).getMessage());
        assertThrows(BadValueException.class, () -> Durations.parsePositive("x", "-5m"));
    }

    @Test
    void writesTheShortFormThatParseReadsBack() {
        assertEquals("30s", Durations.format(Duration.ofSeconds(30)));
        assertEquals("10m", Durations.format(Duration.ofMinutes(10)));
        assertEquals("2h", Durations.format(Duration.ofHours(2)));
        assertEquals("1500ms", Durations.format(Duration.ofMillis(1500)));
        for (Duration d : new Duration[] {Duration.ofMillis(1), Duration.ofSeconds(61), Duration.ofDays(2), Duration.ZERO}) {
            assertEquals(d, Durations.parse("x", Durations.format(d)), "round trip of " + d);
        }
    }
}
