package org.mpirunft.common;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Checkpoint directories that are their user's alone. A site's checkpoint directory (shared or
 * node-local) holds one directory per user, {@code BASE/USER}, mode 0700, which that user's own
 * processes create in a base that everyone may write to and nobody may delete from but their
 * owner (mode 1777, as {@code /tmp}); each job's directory inside is 0700 too. A user's directory
 * that exists but is another user's, or open to others, is refused rather than used: another
 * user who made it first could read the job's checkpoints or swap in state of their own.
 */
public final class PrivateDirectories {
    /** 0700. */
    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /**
     * The daemons' own directory in a site's shared storage, root's, mode 0700: the job table,
     * and what the daemons keep of users' jobs that the users must not be able to change. No user
     * name starts with a dot ({@link #ofUser}), so no user's directory is this one.
     */
    public static final String DAEMONS = ".ftd";

    private PrivateDirectories() {
    }

    /** {@code base/user}: the user's directory under a site's checkpoint directory. */
    public static Path ofUser(Path base, String user) {
        if (user.isEmpty() || user.contains("/") || user.startsWith(".")) {
            throw new IllegalArgumentException("'" + user + "' is not a user name");
        }
        return base.resolve(user);
    }

    /**
     * Makes {@code directory} (mode 0700) if it is missing, else checks that it is the calling
     * process's user's and open to nobody else.
     *
     * @throws IllegalStateException with one line naming the directory and what is wrong
     */
    public static Path ensure(Path directory) {
        try {
            Files.createDirectory(directory, ownerOnly());
            return directory;
        } catch (FileAlreadyExistsException exists) {
            return checkOwn(directory);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalStateException(directory.getParent() + " does not exist (the site's checkpoint directory; "
                    + "an operator creates it, mode 1777)");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IllegalStateException("cannot create " + directory + ": " + directory.getParent()
                    + " is not writable by " + currentUser() + " (an operator makes it mode 1777, or creates " + directory
                    + " owned by " + currentUser() + ", mode 0700)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes {@code directory} and any missing parent (mode 0700), then checks that nobody but the
     * calling process's user can change what is in it, as sshd's StrictModes does: the directory
     * is that user's and open to nobody else, and every directory above it is that user's or
     * root's and, if others may write to it, sticky (as {@code /tmp} and a site's 1777 storage are,
     * where nobody may rename or delete another user's entries). For the daemons' own files in
     * storage that users write to: a user who made one of these directories first could swap in
     * files of their own.
     *
     * @throws IllegalStateException with one line naming the directory and what is wrong
     */
    public static Path ensureSecure(Path directory) {
        try {
            createPrivate(directory);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make " + directory + ": " + e.getMessage(), e);
        }
        return checkSecure(directory);
    }

    /** The check of {@link #ensureSecure}, on a directory that must exist already. */
    public static Path checkSecure(Path directory) {
        checkOwn(directory);
        try {
            String self = currentUser();
            for (Path above = directory.toRealPath().getParent(); above != null; above = above.getParent()) {
                String owner = Files.getOwner(above).getName();
                if (!owner.equals(self) && !owner.equals("root")) {
                    throw new IllegalStateException(above + " belongs to " + owner + ", who could replace " + directory
                            + "; refusing to keep files there");
                }
                int mode = (Integer) Files.getAttribute(above, "unix:mode");
                if ((mode & 0022) != 0 && (mode & 01000) == 0) {
                    throw new IllegalStateException(above + " is writable by others and not sticky (mode "
                            + Integer.toOctalString(mode & 07777) + "), so anyone could replace " + directory + "; refusing to keep files there");
                }
            }
            return directory;
        } catch (IOException e) {
            throw new IllegalStateException("cannot check " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Creates {@code directory} and any missing parent, each missing one mode 0700. */
    public static Path createPrivate(Path directory) throws IOException {
        if (Files.isDirectory(directory)) {
            return directory;
        }
        Path parent = directory.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            createPrivate(parent);
        }
        try {
            Files.createDirectory(directory, ownerOnly());
        } catch (FileAlreadyExistsException raced) {
            if (!Files.isDirectory(directory)) {
                throw raced;
            }
        }
        return directory;
    }

    private static Path checkOwn(Path directory) {
        try {
            if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException(directory + " is not a directory (a symbolic link is refused too)");
            }
            String owner = Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).getName();
            if (!owner.equals(currentUser())) {
                throw new IllegalStateException(directory + " belongs to " + owner + ", not to " + currentUser()
                        + "; refusing to keep checkpoints there");
            }
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
            if (!OWNER_ONLY.containsAll(permissions)) {
                throw new IllegalStateException(directory + " is open to others (mode "
                        + PosixFilePermissions.toString(permissions) + "); chmod 700 it");
            }
            return directory;
        } catch (IOException e) {
            throw new IllegalStateException("cannot check " + directory + ": " + e.getMessage(), e);
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> ownerOnly() {
        return PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    }

    /** The user this process runs as. */
    public static String currentUser() {
        return System.getProperty("user.name");
    }
}
