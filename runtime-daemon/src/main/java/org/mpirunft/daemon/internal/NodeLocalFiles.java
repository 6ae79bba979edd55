package org.mpirunft.daemon.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of the files a job's processes hold open are this node's own, and so go into a
 * transparent dump: a spare has none of them, and CRIU reopens files by path.
 *
 * <p>A file is the node's own when it lies below a node-local directory ({@link #DIRECTORIES}:
 * where programs keep what only this node has, PRRTE's session directory, PMIx's and Open MPI's
 * shared segments, JVMs' perf data) <em>and on that directory's own mount</em>, as the holding
 * process's mount table ({@code /proc/PID/mountinfo}) says, unless that mount is a network file
 * system or the file is in the site's shared storage. The mount decides, not the path: a user's
 * tree cloned under {@code /tmp} and shared into the nodes (a bind mount, as the simulated cluster
 * shares it; on a cluster, NFS or Lustre mounted there) is a mount of its own below {@code /tmp},
 * the same files on every node, and unpacking them over themselves on every node made every
 * restore fail. A tree that lives anywhere else is outside the directories and never looked at.
 *
 * <p>Immutable; built from one process's mount table, so that paths are read in that process's
 * mount namespace, where they mean what the process's {@code /proc/PID/fd} links say.
 */
final class NodeLocalFiles {
    /** The node-local directories: every node has its own, and nothing in them is on another node. */
    static final List<String> DIRECTORIES = List.of("/tmp", "/dev/shm");

    /**
     * File system types whose files are every node's (network and cluster file systems): a
     * node-local directory on one of them holds nothing of the node's own.
     */
    static final Set<String> SHARED_TYPES = Set.of("nfs", "nfs4", "lustre", "gpfs", "beegfs", "cifs", "smb3", "smbfs", "ceph",
            "fuse.ceph", "glusterfs", "fuse.glusterfs", "fuse.sshfs", "afs", "panfs", "orangefs", "pvfs2", "9p", "virtiofs", "gfs2",
            "ocfs2", "wekafs", "fuse.weka", "fuse.juicefs");

    private static final Pattern OCTAL_ESCAPE = Pattern.compile("\\\\([0-7]{3})");

    /** One line of a mount table: the mount's id, its parent's, the mounted directory of its file system, where, and its type. */
    record Mount(int id, int parent, String root, String point, String type) {
        boolean shared() {
            return SHARED_TYPES.contains(type);
        }
    }

    /**
     * A file a process holds: its path as {@code /proc/PID/fd} or {@code /proc/PID/map_files}
     * shows it, and the id of the mount it is on from {@code /proc/PID/fdinfo}, or -1 (a mapping,
     * which has no fdinfo: its mount is found from the path).
     */
    record HeldFile(String path, int mountId) {
    }

    private final List<Mount> mounts;
    /** The site's shared storage (checkpoints) as the processes see it; never the node's own, whatever its mount. */
    private final String sharedStorage;

    private NodeLocalFiles(List<Mount> mounts, String sharedStorage) {
        this.mounts = List.copyOf(mounts);
        this.sharedStorage = sharedStorage;
    }

    /**
     * @param mountInfo     the lines of the holding process's {@code /proc/PID/mountinfo}
     * @param sharedStorage the site's shared storage directory, or null if none is known
     */
    static NodeLocalFiles of(List<String> mountInfo, String sharedStorage) {
        List<Mount> mounts = new ArrayList<>();
        for (String line : mountInfo) {
            parse(line).ifPresent(mounts::add);
        }
        return new NodeLocalFiles(mounts, sharedStorage == null ? null : stripSlash(sharedStorage));
    }

    /** One mountinfo line: {@code ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER}. */
    static Optional<Mount> parse(String line) {
        String[] fields = line.strip().split(" ");
        int dash = List.of(fields).indexOf("-");
        if (fields.length < 6 || dash < 6 || dash + 1 >= fields.length) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Mount(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]), unescape(fields[3]), unescape(fields[4]),
                    fields[dash + 1]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The entry right below a node-local directory that holds {@code file} ({@code /tmp/prted.5}
     * for {@code /tmp/prted.5/0/x}, {@code /dev/shm/seg} for itself), when the file is the node's
     * own; empty otherwise.
     */
    Optional<String> topOf(HeldFile file) {
        String path = file.path();
        if (path.endsWith(" (deleted)") || !path.startsWith("/")) {
            return Optional.empty(); // CRIU keeps a deleted file itself; sockets, pipes and anonymous memory are no files
        }
        for (String directory : DIRECTORIES) {
            if (path.startsWith(directory + "/") && path.length() > directory.length() + 1) {
                Optional<Mount> own = mountOf(directory);
                Optional<Mount> holding = file.mountId() >= 0 ? byId(file.mountId()) : mountOf(path);
                if (own.isEmpty() || holding.isEmpty() || own.get().id() != holding.get().id() || own.get().shared()
                        || inSharedStorage(path)) {
                    return Optional.empty();
                }
                String rest = path.substring(directory.length() + 1);
                int slash = rest.indexOf('/');
                return Optional.of(directory + "/" + (slash < 0 ? rest : rest.substring(0, slash)));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code path}, found below a top entry ({@link #topOf}) rather than held open, is the
     * node's own too: on its node-local directory's own mount. A directory for which this is false
     * is not descended into.
     */
    boolean isOwn(String path) {
        for (String directory : DIRECTORIES) {
            if (path.startsWith(directory + "/")) {
                Optional<Mount> own = mountOf(directory);
                Optional<Mount> holding = mountOf(path);
                return own.isPresent() && holding.isPresent() && own.get().id() == holding.get().id() && !own.get().shared()
                        && !inSharedStorage(path);
            }
        }
        return false;
    }

    private boolean inSharedStorage(String path) {
        return sharedStorage != null && (path.equals(sharedStorage) || path.startsWith(sharedStorage + "/"));
    }

    private Optional<Mount> byId(int id) {
        return mounts.stream().filter(m -> m.id() == id).findFirst();
    }

    /**
     * The mount {@code path} lies on, as the kernel resolves it: from the root mount down, at each
     * prefix of the path the mount attached there to the current one (and any stacked on that
     * one, the last being visible). A mount hidden by a later one over a directory above it is
     * attached to the hidden mount, and so never reached.
     */
    Optional<Mount> mountOf(String path) {
        Optional<Mount> current = root();
        if (current.isEmpty()) {
            return current;
        }
        current = Optional.of(topmost(current.get(), "/"));
        String clean = stripSlash(path);
        int from = 1;
        while (from <= clean.length()) {
            int slash = clean.indexOf('/', from);
            String prefix = slash < 0 ? clean : clean.substring(0, slash);
            current = Optional.of(topmost(current.get(), prefix));
            if (slash < 0) {
                break;
            }
            from = slash + 1;
        }
        return current;
    }

    /** The process's root mount: at {@code /}, with a parent outside its table. */
    private Optional<Mount> root() {
        return mounts.stream().filter(m -> m.point().equals("/") && byId(m.parent()).isEmpty()).findFirst();
    }

    /** The mount visible at {@code point} on top of {@code under}: the last one attached there, recursively. */
    private Mount topmost(Mount under, String point) {
        Mount current = under;
        while (true) {
            Mount above = null;
            for (Mount m : mounts) {
                if (m.parent() == current.id() && m.point().equals(point) && m.id() != current.id()) {
                    above = m;
                }
            }
            if (above == null) {
                return current;
            }
            current = above;
        }
    }

    private static String stripSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** Space, tab, newline and backslash are written as octal escapes in mountinfo. */
    private static String unescape(String field) {
        Matcher escape = OCTAL_ESCAPE.matcher(field);
        StringBuilder out = new StringBuilder();
        while (escape.find()) {
            escape.appendReplacement(out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(escape.group(1), 8))));
        }
        escape.appendTail(out);
        return out.toString();
    }
}
