package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A directory that only the daemon's user (root) may enter: where transparent mode keeps its
 * CRIU images. The daemon restores those images as root, so a file that a user could write
 * there would be a process tree of the user's making that root restores, uid and all; and they
 * hold the job's memory, which no other user may read.
 *
 * <p>The directory is created mode 0700. One that exists must be exactly the daemon's user's
 * with no group or other permission and not a symbolic link, and its parent must be the daemon's
 * user's or sticky (mode 1777, as the site's storage is): otherwise a user could have made it
 * first, or rename it away and put their own in its place, and it is refused with one line.
 */
final class RootOnlyDirectory {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private RootOnlyDirectory() {
    }

    /**
     * Creates {@code directory} (0700; with {@code parents}, its missing parents too, as the
     * daemon's user's) or checks the one there.
     *
     * @throws IllegalStateException one line: what is wrong and what an operator does
     */
    static Path ensure(Path directory, boolean parents) {
        try {
            if (parents && directory.getParent() != null) {
                Files.createDirectories(directory.getParent());
            }
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException exists) {
            // Checked below, as a new one is.
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalStateException("cannot create " + directory + ": " + directory.getParent() + " does not exist");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + directory + ": " + e.getMessage(), e);
        }
        return check(directory);
    }

    /** Checks that {@code directory} is the daemon's user's alone, in a parent no user can swap it in; returns it. */
    static Path check(Path directory) {
        try {
            if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException(directory + " is not a directory (a symbolic link is refused too)" + FIX);
            }
            long self = uid(Path.of("/proc/self"));
            long owner = uid(directory);
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
            if (owner != self || !OWNER_ONLY.containsAll(permissions)) {
                throw new IllegalStateException(directory + " must be " + System.getProperty("user.name") + "'s alone (it is uid " + owner
                        + "'s, mode " + PosixFilePermissions.toString(permissions) + "): a user who made it could put images of their own "
                        + "in it for the daemon to restore" + FIX);
            }
            Path parent = directory.toAbsolutePath().getParent();
            if (parent != null && uid(parent) != self && !sticky(parent)) {
                throw new IllegalStateException(directory + "'s parent " + parent + " is uid " + uid(parent)
                        + "'s and not sticky: its owner could swap the directory; use a root-owned or mode-1777 parent");
            }
            return directory;
        } catch (IOException e) {
            throw new IllegalStateException("cannot check " + directory + ": " + e.getMessage(), e);
        }
    }

    /** What an operator does about a refused directory. */
    private static final String FIX = "; an operator removes it, and the daemon makes it again";

    private static long uid(Path path) throws IOException {
        return ((Number) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
    }

    /** The sticky bit (S_ISVTX): in such a directory only an entry's owner may rename or delete it. */
    private static boolean sticky(Path directory) throws IOException {
        return (((Number) Files.getAttribute(directory, "unix:mode")).intValue() & 01000) != 0;
    }

}
