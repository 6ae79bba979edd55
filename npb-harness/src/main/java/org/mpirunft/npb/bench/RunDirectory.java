package org.mpirunft.npb.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

/**
 * The bench's private run directory under /var/tmp, shared into every node. Everything the nodes
 * run is copied into it first (the NPB jars, the mpirun-ft distribution, the daemons), so a rebuild
 * during a long bench cannot swap them; the runs' checkpoints and the mpirun wrapper are there too.
 */
record RunDirectory(Path path) {
    /** Makes the directory and copies in what the nodes run. */
    static RunDirectory prepare(BenchSettings settings) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "npb-bench-" + settings.clusterName() + "-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        RunDirectory run = new RunDirectory(dir);
        Path harness = settings.repo().resolve("npb-harness");
        Path jar = harness.resolve("target/npb-harness.jar");
        if (!Files.isRegularFile(jar)) {
            throw new BenchException("no " + jar + "; build first: mvn -pl runtime-daemon,mpirun-ext,npb-harness -am package -DskipTests");
        }
        copyTree(harness.resolve("target/lib"), dir.resolve("npb-harness/target/lib"));
        Files.copy(jar, dir.resolve("npb-harness/target/npb-harness.jar"));
        Files.createDirectories(dir.resolve("npb-harness/bin"));
        Files.copy(harness.resolve("bin/npb"), run.npb(), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        if (Files.isDirectory(settings.launcher())) {
            copyTree(settings.launcher(), dir.resolve("mpirun-ft"));
        } else if (Files.isRegularFile(settings.launcher())) {
            Process tar = new ProcessBuilder("tar", "xzf", settings.launcher().toString(), "-C", dir.toString())
                    .redirectErrorStream(true).start();
            String text = new String(tar.getInputStream().readAllBytes());
            if (tar.waitFor() != 0 || !Files.isExecutable(run.launcher())) {
                throw new BenchException("cannot unpack " + settings.launcher() + " into mpirun-ft/: " + text.strip());
            }
        } else {
            throw new BenchException("no mpirun-ft distribution at " + settings.launcher()
                    + "; build first: mvn -pl runtime-daemon,mpirun-ext,npb-harness -am package -DskipTests");
        }
        if (!Files.isExecutable(settings.daemons().resolve("bin/ftd"))) {
            throw new BenchException("no ftd distribution at " + settings.daemons() + " (bin/ftd, lib/)");
        }
        copyTree(settings.daemons(), run.daemons());
        Files.createDirectories(run.checkpoints());
        Path mpirun = run.mpirun();
        // mpirun runs on the head node; the launch agent tags node daemons with the job's name.
        Files.writeString(mpirun, "#!/usr/bin/env bash\nexec env MPIRUN_FT_CLUSTER=" + settings.clusterName() + " "
                + settings.repo().resolve("scripts/cluster") + " exec head -e MPIRUN_FT_JOB=\"$MPIRUN_FT_JOB\" -- mpirun \"$@\"\n");
        Files.setPosixFilePermissions(mpirun, PosixFilePermissions.fromString("rwxr-xr-x"));
        return run;
    }

    /** mpirun-ft, from its distribution. */
    Path launcher() {
        return path.resolve("mpirun-ft/bin/mpirun-ft");
    }

    /** The wrapper that runs Open MPI's mpirun on the head node. */
    Path mpirun() {
        return path.resolve("mpirun");
    }

    /** The jobs' shared checkpoint storage ({@code --checkpoint-dir}). */
    Path checkpoints() {
        return path.resolve("ckpt");
    }

    /** The ftd distribution the nodes' daemons run. */
    Path daemons() {
        return path.resolve("ftd");
    }

    /** The NPB command, the program of every job. */
    Path npb() {
        return path.resolve("npb-harness/bin/npb");
    }

    /** Copies the tree at {@code from} to {@code to}, files with their attributes (executable bits included). */
    private static void copyTree(Path from, Path to) throws IOException {
        List<Path> tree;
        try (Stream<Path> all = Files.walk(from)) {
            tree = all.toList();
        }
        for (Path source : tree) {
            Path target = to.resolve(from.relativize(source).toString());
            if (Files.isDirectory(source)) {
                Files.createDirectories(target);
            } else {
                Files.copy(source, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }
}
