package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.JobOwner;

class JobTempDirectoriesTest {
    @TempDir
    Path base;

    private final JobOwner root = new JobOwner(0, "root");

    @Test
    void aJobsDirectoriesGoOnlyOnceItHasNoProcessLeftHere() throws Exception {
        JobTempDirectories temps = new JobTempDirectories(base, ProcessBuilder::start);
        Path first = temps.create("j", root, null);
        Path second = temps.create("j", root, null);
        Path other = temps.create("k", root, null);
        assertTrue(first.getFileName().toString().matches("mpirun-ft-j-\\d+"), first.toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first)));
        Files.createDirectories(first.resolve("prted.42/0"));

        temps.removeEnded(Set.of("j", "k"));
        assertTrue(Files.exists(first) && Files.exists(second) && Files.exists(other));
        temps.removeEnded(Set.of("k"));
        assertFalse(Files.exists(first) || Files.exists(second), "j ended here: its directories went, with what PRRTE left in them");
        assertTrue(Files.exists(other), "k still runs here");
        temps.removeEnded(Set.of());
        assertFalse(Files.exists(other));
        assertTrue(temps.isEmpty());
    }

    /** A transparent restore unpacked a node daemon's directory, named on the node it was dumped on. */
    @Test
    void theDirectoriesARestoreUnpackedAreTakenOnAndNoOthers() throws Exception {
        JobTempDirectories temps = new JobTempDirectories(base, ProcessBuilder::start);
        Path restored = Files.createDirectory(base.resolve("mpirun-ft-j-123"));
        Path anotherJobs = Files.createDirectory(base.resolve("mpirun-ft-j-1-456"));
        Path notOurs = Files.createDirectory(base.resolve("mpirun-ft-j-789"));
        Files.setAttribute(notOurs, "unix:uid", 65534);
        temps.adopt("j", root, null);
        temps.removeEnded(Set.of());
        assertFalse(Files.exists(restored));
        assertTrue(Files.exists(anotherJobs), "job j-1's, not j's");
        assertTrue(Files.exists(notOurs), "not the owner's");
    }
}
