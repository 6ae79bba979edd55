package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void readsDurationsWithUnitsAndIso() {
        assertEquals(Duration.ofSeconds(30), Durations.parse("x", "30s"));
        assertEquals(Duration.ofMinutes(10), Durations.parse("x", "10m"));
        assertEquals(Duration.ofHours(1), Durations.parse("x", "1h"));
        assertEquals(Duration.ofMillis(500), Durations.parse("x", "500ms"));
        assertEquals(Duration.ofSeconds(90), Durations.parse("x", "PT1M30S"));
    }

    @Test
    void writesTheShortFormTheRankLibraryReadsBack() {
        assertEquals("30s", Durations.format(Duration.ofSeconds(30)));
        assertEquals("10m", Durations.format(Duration.ofMinutes(10)));
        assertEquals("2h", Durations.format(Duration.ofHours(2)));
        assertEquals("1500ms", Durations.format(Duration.ofMillis(1500)));
    }

    @Test
    void checkpointIntervalIsAutoOrAPositiveDuration() {
        assertTrue(CheckpointInterval.parse("--checkpoint-interval", "auto").isAuto());
        assertTrue(CheckpointInterval.parse("--checkpoint-interval", "AUTO").isAuto());
        assertEquals(Duration.ofMinutes(10), CheckpointInterval.parse("--checkpoint-interval", "10m").fixed().orElseThrow());
        for (String bad : new String[] {"soon", "0s", "-5m", "10", "m", ""}) {
            BadSettingException e = assertThrows(BadSettingException.class, () -> CheckpointInterval.parse("--checkpoint-interval", bad));
            assertEquals("--checkpoint-interval: must be 'auto' or a duration such as 30s, 10m or 1h, got '" + bad + "'", e.getMessage());
        }
    }

    @Test
    void recoveryIsPauseOrRestart() {
        assertEquals(RecoveryMode.RESTART, RecoveryMode.parse("--recovery", " Restart "));
        assertThrows(BadSettingException.class, () -> RecoveryMode.parse("--recovery", "resume"));
    }
}
