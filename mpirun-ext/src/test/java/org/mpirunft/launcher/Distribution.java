package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.mpirunft.testkit.SimulatedCluster;

/** The mpirun-ft distribution the simulated nodes run (bin/ftd, bin/mpirun-ft, lib/), unpacked from the package phase's tarball. */
final class Distribution {
    private Distribution() {
    }

    /** Unpacks the tarball into {@code mpirun-ext/target/WORK/dist} and returns that work directory; the distribution is {@code dist/mpirun-ft} in it. */
    static Path unpack(String work) throws IOException, InterruptedException {
        Path repo = SimulatedCluster.repoRoot();
        Path directory = repo.resolve("mpirun-ext/target").resolve(work);
        Path tarball = repo.resolve("mpirun-ext/target/mpirun-ft-dist.tar.gz");
        org.mpirunft.common.FileTrees.delete(directory.resolve("dist"));
        Files.createDirectories(directory.resolve("dist"));
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", directory.resolve("dist").toString()).inheritIO().start();
        assertEquals(0, tar.waitFor(), "unpacking " + tarball);
        return directory;
    }
}
