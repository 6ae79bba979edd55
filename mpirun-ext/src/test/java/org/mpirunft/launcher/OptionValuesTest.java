package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;

/** The values of mpirun-ft's own options; the duration grammar itself is common's (DurationsTest there). */
class OptionValuesTest {
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
    void aBadOptionValueOfAnyParserIsAUsageError() {
        assertEquals(ExitCode.USAGE, ExitCode.of(assertThrows(BadSettingException.class, () -> RecoveryMode.parse("--recovery", "x"))));
        assertEquals(ExitCode.USAGE, ExitCode.of(assertThrows(BadValueException.class, () -> Durations.parse("--stop-grace", "x"))),
                "common's parsers throw BadValueException, which must map like mpirun-ft's own");
        assertEquals(ExitCode.USAGE, ExitCode.of(assertThrows(BadValueException.class,
                () -> LaunchSettings.builder().job("../x").build())));
    }

    @Test
    void recoveryIsPauseOrRestart() {
        assertEquals(RecoveryMode.RESTART, RecoveryMode.parse("--recovery", " Restart "));
        assertThrows(BadSettingException.class, () -> RecoveryMode.parse("--recovery", "resume"));
    }
}
