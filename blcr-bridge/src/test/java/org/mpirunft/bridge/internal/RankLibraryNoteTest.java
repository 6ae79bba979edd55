package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RankLibraryNoteTest {
    @TempDir
    Path dir;

    @Test
    void rankZeroLeavesTheNoteOnceAndAnEarlierRunsNoteIsAsGood() {
        Path note = dir.resolve("0123456789abcdef");
        RankLibraryNote.write(note);
        assertTrue(Files.isRegularFile(note), "noted");
        RankLibraryNote.write(note);
        assertTrue(Files.isRegularFile(note), "a second run's rank 0 finds it there and goes on");
    }

    @Test
    void aNoteThatCannotBeWrittenDoesNotStopTheProgram() {
        Path note = dir.resolve("gone/0123456789abcdef");
        RankLibraryNote.write(note);
        assertFalse(Files.exists(note), "no directory, no note, and no exception");
    }
}
