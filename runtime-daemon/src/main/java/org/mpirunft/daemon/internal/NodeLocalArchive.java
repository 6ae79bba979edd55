package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.mpirunft.common.JobOwner;

/**
 * The node's own files of a transparent part in its images ({@code files.tar}): which files the
 * tree holds open or mapped that only this node has ({@link NodeLocalFiles}: PRRTE's session
 * directory, PMIx's shared segments), archived by CRIU's post-dump hook while the tree is frozen,
 * and put back before a restore. CRIU reopens files by path, and a spare has none of them.
 *
 * <p>Whose rights: the list and the archive are root's, in the images, but {@code tar} reads and
 * writes the files themselves with the owner's rights ({@link AsOwner}), in an environment of its
 * own: root must not copy a file the owner could not read, or write through a link the owner put
 * in its way.
 *
 * @param node          this node, first in every message
 * @param commands      how the archive's commands run
 * @param sharedStorage the site's shared storage, as this node mounts it (null if none): never a
 *                      node-local file, whatever its mount
 */
record NodeLocalArchive(String node, StepCommands commands, Path sharedStorage) {
    private static final String FILES_LIST = "files.list";
    private static final String FILES_TAR = "files.tar";
    /** The dump's post-dump hook, which CRIU runs itself (no shell): kept in the node's images only. */
    static final String HOOK = "archive.sh";

    /** Writes into the dump's {@code dir} the list of the node's own files that the processes {@code pids} hold. */
    void writeList(Path dir, List<Long> pids) throws IOException {
        Files.write(dir.resolve(FILES_LIST), nodeLocalFiles(pids), StandardCharsets.UTF_8);
    }

    /**
     * Writes the dump's post-dump hook into {@code dir} and returns it: it archives the listed
     * files while the tree is still frozen. CRIU executes the hook itself, without a shell: a
     * script file. The shell (root) opens the list and the archive, in root's directory; tar
     * reads the files as the owner.
     */
    Path writeHook(Path dir, JobOwner owner, Accounts.Account account) {
        Path archive = dir.resolve(HOOK);
        List<String> tar = asOwner(owner, account, List.of("tar", "-C", "/", "-cf", "-", "--no-recursion", "--ignore-failed-read", "-T", "-"));
        try {
            Files.writeString(archive, "#!/bin/sh\n[ \"$CRTOOLS_SCRIPT_ACTION\" != post-dump ] || exec " + String.join(" ",
                    tar.stream().map(NodeLocalArchive::quoted).toList()) + " < " + quoted(dir.resolve(FILES_LIST).toString()) + " > "
                    + quoted(dir.resolve(FILES_TAR).toString()) + "\n");
            archive.toFile().setExecutable(true, true);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot write " + archive + ": " + e.getMessage(), e);
        }
        return archive;
    }

    /** Puts back the node-local files of the part in {@code dir}, if its dump archived any ({@link #unpackNodeLocalFiles}). */
    void unpack(Path dir, JobOwner owner, Accounts.Account account, String job, long epoch) {
        if (Files.exists(dir.resolve(FILES_TAR))) {
            unpackNodeLocalFiles(dir.resolve(FILES_TAR), owner, account, job, epoch);
        }
    }

    /**
     * Puts the node-local files of the part back, as the owner, from root's archive on stdin:
     * what the owner may write, where the owner may.
     *
     * <p>A file that is already here with the archive's content is left alone: a survivor still
     * has most of its own files, and one that cannot be replaced (on a read-only or foreign
     * mount, or another user's in a sticky directory) must not fail the restore when nothing
     * would change. A file here with other content is replaced by the archive's: the restored
     * processes resume with the offsets, sizes and mapped pages they had at the dump, so the
     * dump's content is the only one consistent with them (a segment or session file rewritten
     * since belongs to a run the restore discards). If it cannot be replaced, the restore
     * refuses with one line naming the file rather than resume on a file the tree never saw,
     * and the job is restarted from its checkpoint. Existing directories keep their metadata
     * ({@code --no-overwrite-dir}): only their entries are the part's.
     */
    void unpackNodeLocalFiles(Path archive, JobOwner owner, Accounts.Account account, String job, long epoch) {
        List<String> members = List.of(commands.run("listing the node-local files", List.of("tar", "-tf", archive.toString()), null)
                .split("\n"));
        // tar -d exits 1 when it found differences, which is news here, not a failure.
        String compared = commands.runWithInput("comparing the node-local files", asOwner(owner, account, List.of("sh", "-c",
                "tar -C / -df - 2>&1; [ $? -le 1 ]")), archive);
        List<String> command = new ArrayList<>(List.of("tar", "-C", "/", "-xpf", "-", "--no-same-owner", "--no-overwrite-dir", "--anchored",
                "--no-wildcards"));
        for (String same : unchangedMembers(members, compared)) {
            command.add("--exclude=" + same);
        }
        try {
            commands.runWithInput("unpacking the node-local files", asOwner(owner, account, command), archive);
        } catch (IllegalStateException e) {
            java.util.regex.Matcher refused = java.util.regex.Pattern.compile("tar: ([^|]+?): Cannot ([^|:]+)(: ([^|)]+))?").matcher(
                    String.valueOf(e.getMessage()));
            if (refused.find()) {
                throw new IllegalStateException(node + ": cannot put /" + refused.group(1) + " back from epoch " + epoch + " of " + job
                        + ": it is here with other content than at the dump and cannot be replaced (tar: cannot " + refused.group(2)
                        + (refused.group(4) == null ? "" : ": " + refused.group(4).strip()) + ")", e);
            }
            throw e;
        }
    }

    /**
     * The archive's files and links that are here with the archive's content, from {@code tar
     * -d}'s report ({@code compared}, in the C locale): those it names with other content, size,
     * type or link target, or cannot find, are not; directories never are (their entries are).
     * Mode, owner and time differences are no content.
     */
    static List<String> unchangedMembers(List<String> members, String compared) {
        Set<String> differ = new java.util.HashSet<>();
        java.util.regex.Pattern report = java.util.regex.Pattern.compile(
                "^(?:tar: )?(.+?): (?:Contents differ|Size differs|File type differs|Symlink differs|Not linked to .*|Warning: Cannot .*|Cannot .*)$");
        for (String line : compared.split("\n")) {
            java.util.regex.Matcher m = report.matcher(line.strip());
            if (m.matches()) {
                differ.add(m.group(1));
            }
        }
        return members.stream().map(String::strip).filter(m -> !m.isEmpty() && !m.endsWith("/") && !differ.contains(m)).toList();
    }

    /**
     * The node's own files the processes hold open or mapped ({@link NodeLocalFiles}: below
     * {@code /tmp} and {@code /dev/shm}, on those directories' own mounts as each process's mount
     * table has them), each with its top entry and everything below that on the same mount.
     * Walked and later archived in the daemon's mount namespace, where these directories are the
     * node's as they are the tree's (the node daemons are the daemon's children).
     */
    private List<String> nodeLocalFiles(List<Long> pids) {
        Map<String, NodeLocalFiles> byNamespace = new java.util.HashMap<>();
        Map<String, NodeLocalFiles> ownerOfTop = new java.util.TreeMap<>();
        Set<String> referenced = new java.util.TreeSet<>();
        for (long pid : pids) {
            Path proc = Path.of("/proc", Long.toString(pid));
            NodeLocalFiles mounts;
            try {
                String namespace = Files.readSymbolicLink(proc.resolve("ns/mnt")).toString();
                mounts = byNamespace.computeIfAbsent(namespace, ns -> NodeLocalFiles.of(readLines(proc.resolve("mountinfo")),
                        sharedStorage == null ? null : sharedStorage.toString()));
            } catch (IOException e) {
                continue; // The process exited.
            }
            for (NodeLocalFiles.HeldFile held : heldFiles(proc)) {
                mounts.topOf(held).ifPresent(top -> {
                    ownerOfTop.putIfAbsent(top, mounts);
                    referenced.add(held.path());
                });
            }
        }
        List<String> entries = new ArrayList<>();
        for (Map.Entry<String, NodeLocalFiles> entry : ownerOfTop.entrySet()) {
            String top = entry.getKey();
            if (top.startsWith("/tmp/hsperfdata_")) {
                // A JVM's perf data file sits beside every other JVM's of the user: only the tree's own go.
                entries.add(top.substring(1));
                referenced.stream().filter(p -> p.startsWith(top + "/")).forEach(p -> entries.add(p.substring(1)));
                continue;
            }
            entries.addAll(below(Path.of(top), entry.getValue()));
        }
        return entries;
    }

    /**
     * {@code top} and what is below it on the node's own mount, without the leading slash. Named
     * pipes and sockets are no content: CRIU makes bound sockets again, and a pipe replaced by tar
     * would leave its reader (mpirun-ft) on the old one. Another mount below is not entered.
     */
    private static List<String> below(Path top, NodeLocalFiles mounts) {
        List<String> entries = new ArrayList<>();
        try {
            Files.walkFileTree(top, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult preVisitDirectory(Path dir, java.nio.file.attribute.BasicFileAttributes attrs) {
                    if (!mounts.isOwn(dir.toString())) {
                        return java.nio.file.FileVisitResult.SKIP_SUBTREE;
                    }
                    entries.add(dir.toString().substring(1));
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                    if ((attrs.isRegularFile() || attrs.isSymbolicLink()) && mounts.isOwn(file.toString())) {
                        entries.add(file.toString().substring(1));
                    }
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                    return java.nio.file.FileVisitResult.CONTINUE; // Removed meanwhile: nothing to keep.
                }
            });
        } catch (IOException | java.io.UncheckedIOException ignored) {
            // Removed meanwhile: nothing to keep.
        }
        return entries;
    }

    /** What {@code proc}'s process holds: its open files with the mount each is on (fdinfo), and its mapped files. */
    private static List<NodeLocalFiles.HeldFile> heldFiles(Path proc) {
        List<NodeLocalFiles.HeldFile> held = new ArrayList<>();
        for (String kind : List.of("fd", "map_files")) {
            try (Stream<Path> links = Files.list(proc.resolve(kind))) {
                links.forEach(link -> {
                    try {
                        String target = Files.readSymbolicLink(link).toString();
                        held.add(new NodeLocalFiles.HeldFile(target, kind.equals("fd") ? mountId(proc, link.getFileName().toString()) : -1));
                    } catch (IOException ignored) {
                        // Closed meanwhile.
                    }
                });
            } catch (IOException | java.io.UncheckedIOException ignored) {
                // The process exited.
            }
        }
        return held;
    }

    /** The {@code mnt_id} of {@code proc}'s descriptor {@code fd} from its fdinfo, or -1 (then the path decides). */
    private static int mountId(Path proc, String fd) {
        for (String line : readLines(proc.resolve("fdinfo").resolve(fd))) {
            if (line.startsWith("mnt_id:")) {
                try {
                    return Integer.parseInt(line.substring("mnt_id:".length()).strip());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            return List.of();
        }
    }

    /** {@code argv} with the owner's rights, in an environment of its own: a command of the daemon's, on the user's files. */
    private static List<String> asOwner(JobOwner owner, Accounts.Account account, List<String> argv) {
        List<String> command = new ArrayList<>(List.of("env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"));
        command.addAll(AsOwner.command(owner, account, argv));
        return command;
    }

    /** {@code word} as one word of a POSIX shell's command line. */
    static String quoted(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
