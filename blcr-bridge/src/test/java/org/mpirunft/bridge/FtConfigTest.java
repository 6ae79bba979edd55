package org.mpirunft.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Names;

class FtConfigTest {

    @Test
    void readsEverySettingAndHandsItOnAsProperties() {
        Map<String, String> values = Map.of(FtConfig.JOB, "cg.B", FtConfig.SHARED_DIR, "/shared/ckpt",
                FtConfig.LOCAL_DIR, "/local/ckpt", FtConfig.CHECKPOINT_EVERY, "10", FtConfig.CHECKPOINT_INTERVAL, "90s",
                FtConfig.SPARES, "spare1, spare2", FtConfig.FINALIZE_TIMEOUT, "500ms", FtConfig.KEEP_IN_MEMORY, "no");
        FtConfig config = FtConfig.fromLookup(values::get);
        assertEquals("cg.B", config.job().orElseThrow());
        assertEquals(Path.of("/shared/ckpt"), config.sharedDirectory());
        assertEquals(10, config.checkpointEveryIterations());
        assertEquals(Duration.ofSeconds(90), config.checkpointInterval().orElseThrow());
        assertEquals(List.of("spare1", "spare2"), config.spares());
        assertEquals(Duration.ofMillis(500), config.finalizeTimeout());
        assertEquals(false, config.keepInMemory());
        assertEquals(8, config.xorSet(), "SCR's default set size");
        assertEquals(4, FtConfig.fromLookup(Map.of(FtConfig.CHECKPOINT_XOR_SET, "4")::get).xorSet());
        assertEquals(config.toProperties("cg.B").get(FtConfig.SPARES), "spare1,spare2");
        FtConfig again = FtConfig.fromLookup(config.toProperties("cg.B")::get);
        assertEquals(config.toProperties("cg.B"), again.toProperties("cg.B"), "a replacement must get the same settings");
    }

    @Test
    void shrinkIsHandedOnToReplacements() {
        FtConfig config = FtConfig.fromLookup(Map.of(FtConfig.WHEN_NO_SPARE, "shrink")::get);
        assertEquals(org.mpirunft.common.NoSpareAction.SHRINK, config.whenNoSpare());
        assertEquals("shrink", config.toProperties("j").get(FtConfig.WHEN_NO_SPARE));
        assertEquals(org.mpirunft.common.NoSpareAction.STOP_JOB, FtConfig.fromLookup(Map.<String, String>of()::get).whenNoSpare());
    }

    @Test
    void environmentNamesAreTheDocumentedOnes() {
        assertEquals("MPIRUN_FT_CHECKPOINT_EVERY", FtConfig.environmentName(FtConfig.CHECKPOINT_EVERY));
        assertEquals("MPIRUN_FT_SPARES", FtConfig.environmentName(FtConfig.SPARES));
        assertEquals("MPIRUN_FT_SHARED_DIR", FtConfig.environmentName(FtConfig.SHARED_DIR));
        assertEquals("MPIRUN_FT_JOB", FtConfig.environmentName(FtConfig.JOB));
        assertEquals("MPIRUN_FT_RANK_LIBRARY_NOTE", FtConfig.environmentName(FtConfig.RANK_LIBRARY_NOTE));
    }

    @Test
    void theRankLibraryNoteIsReadOnlyWhenMpirunFtAsksForIt() {
        assertEquals(Path.of("/shared/u/.rank-library/0123"),
                FtConfig.fromLookup(Map.of(FtConfig.RANK_LIBRARY_NOTE, "/shared/u/.rank-library/0123")::get).rankLibraryNote().orElseThrow());
        assertTrue(FtConfig.fromLookup(Map.<String, String>of()::get).rankLibraryNote().isEmpty());
        assertTrue(FtConfig.fromLookup(Map.of(FtConfig.RANK_LIBRARY_NOTE, "/n")::get).toProperties("j").get(FtConfig.RANK_LIBRARY_NOTE) == null,
                "a replacement is no rank 0 of a launch: it notes nothing");
    }

    @Test
    void badValuesFailWithTheKeyAndTheValue() {
        assertMessage(Map.of(FtConfig.CHECKPOINT_EVERY, "ten"), "mpirunft.checkpoint.every: must be a whole number, got 'ten'");
        assertMessage(Map.of(FtConfig.WHEN_NO_SPARE, "panic"), "mpirunft.when.no.spare: must be stop-job or shrink, got 'panic'");
        assertMessage(Map.of(FtConfig.WHEN_NO_SPARE, "use-compute"), "mpirunft.when.no.spare: use-compute needs the node daemons");
        assertMessage(Map.of(FtConfig.CHECKPOINT_EVERY, "-1"), "mpirunft.checkpoint.every: must be >= 0, got -1");
        assertMessage(Map.of(FtConfig.CHECKPOINT_INTERVAL, "soon"), "mpirunft.checkpoint.interval: must be a duration");
        assertMessage(Map.of(FtConfig.CHECKPOINT_INTERVAL, "0s"), "mpirunft.checkpoint.interval: must be > 0");
        assertMessage(Map.of(FtConfig.JOB, "a/b"), "mpirunft.job: must be " + Names.RULE + ", got 'a/b'");
        assertMessage(Map.of(FtConfig.JOB, ".."), "mpirunft.job: must be " + Names.RULE + ", got '..'");
        assertMessage(Map.of(FtConfig.SPARES, "spare1,bad host"), "mpirunft.spares: must be " + Names.RULE + ", got 'bad host'");
        assertMessage(Map.of(FtConfig.KEEP_IN_MEMORY, "maybe"), "mpirunft.checkpoint.memory: must be true or false");
        assertMessage(Map.of(FtConfig.CHECKPOINT_XOR_SET, "2"), "mpirunft.checkpoint.xor.set: must be >= 3 (a set of 2 is a partner copy), got 2");
    }

    private static void assertMessage(Map<String, String> values, String expected) {
        BadValueException e = assertThrows(BadValueException.class, () -> FtConfig.fromLookup(values::get));
        assertTrue(e.getMessage().startsWith(expected), "message was: " + e.getMessage());
    }
}
