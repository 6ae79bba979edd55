package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MpirunTempDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void eachRunGetsAPrivateDirectoryWithAnUnguessableNameInTheUsersTmpdirAndItGoesAfterwards() throws Exception {
        Path first;
        try (MpirunTempDirectory temp = MpirunTempDirectory.create("j1", Map.of("TMPDIR", dir.toString()))) {
            first = temp.path();
            assertEquals(dir, first.getParent());
            assertTrue(first.getFileName().toString().matches("mpirun-ft-j1-\\d+"), first.toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first)));
            // What PRRTE leaves there (its session directory, named after mpirun's PID) goes with it.
            Files.createDirectories(first.resolve("ompi.123/0"));
            Files.writeString(first.resolve("ompi.123/0/pmix.tool"), "x");
            try (MpirunTempDirectory second = MpirunTempDirectory.create("j1", Map.of("TMPDIR", dir.toString()))) {
                assertNotEquals(first, second.path(), "two runs of a job never share one");
            }
        }
        assertFalse(Files.exists(first));
    }

    @Test
    void withoutAnAbsoluteTmpdirItIsMadeInJavasTemporaryDirectory() {
        try (MpirunTempDirectory temp = MpirunTempDirectory.create("j2", Map.of("TMPDIR", "relative"))) {
            assertEquals(Path.of(System.getProperty("java.io.tmpdir")), temp.path().getParent());
        }
    }

    @Test
    void aTmpdirThatCannotTakeItIsOneLineNamingIt() {
        Path missing = dir.resolve("missing");
        InstallationException e = assertThrows(InstallationException.class,
                () -> MpirunTempDirectory.create("j3", Map.of("TMPDIR", missing.toString())));
        assertTrue(e.getMessage().startsWith("cannot make a temporary directory for mpirun in " + missing + ": "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
}
