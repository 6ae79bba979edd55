package org.mpirunft.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CheckpointScheduleTest {
    @Test
    void readsTheThreeFormsAndWritesThemBack() {
        assertTrue(CheckpointSchedule.parse("interval", "auto").isAuto());
        assertEquals(CheckpointSchedule.everyIterations(10), CheckpointSchedule.parse("interval", "every 10"));
        assertEquals(CheckpointSchedule.everyIterations(3), CheckpointSchedule.parse("interval", "every 3 iterations"));
        assertEquals(CheckpointSchedule.every(Duration.ofSeconds(2)), CheckpointSchedule.parse("interval", "2s"));
        for (String text : new String[] {"auto", "every 10", "2s", "10m", "1500ms"}) {
            assertEquals(text, CheckpointSchedule.parse("interval", text).toString(), "round trip of " + text);
        }
    }

    @Test
    void aBadValueNamesTheSettingInOneLine() {
        var e = assertThrows(BadValueException.class, () -> CheckpointSchedule.parse("--checkpoint-interval", "soon"));
        assertEquals("--checkpoint-interval", e.setting());
        assertTrue(e.getMessage().startsWith("--checkpoint-interval: must be 'auto'"), e.getMessage());
        assertThrows(BadValueException.class, () -> CheckpointSchedule.parse("x", "every 0"));
        assertThrows(BadValueException.class, () -> CheckpointSchedule.parse("x", "0s"));
    }

    @Test
    void travelsAsTextInJson() {
        String json = JsonLines.encode(new Holder(CheckpointSchedule.parse("x", "every 4")));
        assertEquals("{\"schedule\":\"every 4\"}", json);
        assertEquals(CheckpointSchedule.everyIterations(4), JsonLines.decode(json, Holder.class).schedule());
    }

    record Holder(CheckpointSchedule schedule) {
    }
}
