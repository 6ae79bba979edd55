package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.PrivateDirectories;

/**
 * mpirun's own temporary directory, given to it as {@code TMPDIR} for the job's whole run and
 * removed after it. PRRTE names its session directory after mpirun's PID ({@code /tmp/ompi.PID}),
 * a name any user can make first; PRRTE refuses one that is another user's, so left over by
 * another user's job, or made on purpose, it would keep this job from starting. This directory's
 * name has a random part and it is made at once, mode 0700, as {@code mktemp -d} makes one; it
 * sits in the user's own {@code TMPDIR} when that is set. The node daemons' are made by theirs
 * ({@code runtime-daemon}'s {@code JobTempDirectories}).
 */
final class MpirunTempDirectory implements AutoCloseable {
    static final String VARIABLE = "TMPDIR";
    private final Path path;

    private MpirunTempDirectory(Path path) {
        this.path = path;
    }

    /**
     * Makes the directory for {@code job}, in {@code environment}'s {@code TMPDIR} if that is an
     * absolute path, else in {@code java.io.tmpdir}.
     *
     * @throws InstallationException with one line when it cannot be made
     */
    static MpirunTempDirectory create(String job, Map<String, String> environment) {
        String tmpdir = environment.getOrDefault(VARIABLE, "");
        Path base = !tmpdir.isEmpty() && Path.of(tmpdir).isAbsolute() ? Path.of(tmpdir) : Path.of(System.getProperty("java.io.tmpdir"));
        try {
            return new MpirunTempDirectory(Files.createTempDirectory(base, "mpirun-ft-" + job + "-",
                    PosixFilePermissions.asFileAttribute(PrivateDirectories.OWNER_ONLY)));
        } catch (IOException | UnsupportedOperationException e) {
            throw new InstallationException("cannot make a temporary directory for mpirun in " + base + ": " + e.getMessage());
        }
    }

    Path path() {
        return path;
    }

    /** Removes the directory and what mpirun left in it; what cannot be removed stays (it is the user's own). */
    @Override
    public void close() {
        try {
            FileTrees.delete(path);
        } catch (IOException | java.io.UncheckedIOException ignored) {
            // Unreadable or busy: it stays, the user's alone.
        }
    }
}
