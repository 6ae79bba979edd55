package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.Durations;

/** The values of mpirun-ft's own options; the grammars themselves are common's (tests there). */
class OptionValuesTest {
    @Test
    void aBadOptionValueOfAnyParserIsAUsageError() {
        assertEquals(ExitCode.USAGE, ExitCode.of(assertThrows(BadValueException.class,
                () -> CheckpointSchedule.parse("--checkpoint-interval", "soon"))));
        assertEquals(ExitCode.USAGE, ExitCode.of(assertThrows(BadValueException.class, () -> Durations.parse("--stop-grace", "x"))),
                "common's parsers throw BadValueException, which must map like mpirun-ft's own");
        assertEquals(ExitCode.USAGE, ExitCode.of(assertThrows(BadValueException.class,
                () -> LaunchSettings.builder().job("../x").build())));
    }
}
