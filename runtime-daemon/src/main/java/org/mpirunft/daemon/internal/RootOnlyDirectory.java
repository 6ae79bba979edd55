package org.mpirunft.daemon.internal;

import java.nio.file.Path;
import org.mpirunft.common.PrivateDirectories;

/**
 * A directory that only the daemon's user (root) may enter: where transparent mode keeps its
 * CRIU images. The daemon restores those images as root, so a file that a user could write
 * there would be a process tree of the user's making that root restores, uid and all; and they
 * hold the job's memory, which no other user may read.
 *
 * <p>The directory is created mode 0700. One that exists must be exactly the daemon's user's
 * with no group or other permission and not a symbolic link, and every directory above it root's
 * or the daemon's user's and, where others may write, sticky (mode 1777, as the site's storage
 * is): otherwise a user could have made it first, or rename it away and put their own in its
 * place, and it is refused with one line. The rule is {@link PrivateDirectories#checkSecure}'s,
 * which the job table's directory follows too.
 */
final class RootOnlyDirectory {
    private RootOnlyDirectory() {
    }

    /**
     * Creates {@code directory} and its missing parents (each 0700, the daemon's user's) or
     * checks the one there ({@link PrivateDirectories#ensureSecure}).
     *
     * @throws IllegalStateException one line: what is wrong and what an operator does
     */
    static Path ensure(Path directory) {
        try {
            return PrivateDirectories.ensureSecure(directory);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + FIX, e);
        }
    }

    /** Checks that {@code directory} is the daemon's user's alone, where no user can swap it ({@link PrivateDirectories#checkSecure}). */
    static Path check(Path directory) {
        try {
            return PrivateDirectories.checkSecure(directory);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + FIX, e);
        }
    }

    /** What an operator does about a refused directory. */
    private static final String FIX = "; an operator removes it, and the daemon makes it again";
}
