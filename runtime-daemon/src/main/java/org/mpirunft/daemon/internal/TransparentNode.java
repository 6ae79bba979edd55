package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;

/**
 * This node's part of transparent jobs: its part of a job's process tree (Open MPI's node
 * daemon and its ranks, or mpirun on the launcher's node) dumped and restored with CRIU, and the
 * node's share of the lock that keeps the job's TCP state consistent across nodes.
 *
 * <p><b>Why each step is as it is.</b>
 * <ul>
 *   <li><b>The lock</b> is our own nftables table, not CRIU's: CRIU locks per dump and unlocks
 *       when its dump ends ({@code --leave-running}), but the job's nodes are dumped one by one,
 *       and a packet that crossed between two dumps would be in one image and not the other. So
 *       every node drops the job network's traffic (and the job's own loopback connections,
 *       Open MPI's node daemon talking to its ranks) before any node dumps, until all did.</li>
 *   <li><b>Node-local files</b> the tree holds open or mapped under {@code /tmp} and
 *       {@code /dev/shm} (PRRTE's session directory, PMIx's shared segments) go into the images
 *       as {@code files.tar}: CRIU reopens files by path, and a spare has none of them.</li>
 *   <li><b>A stop before a restore</b> kills the tree under the lock and then destroys the
 *       sockets it leaves: a killed process's connection lingers (its FIN is dropped), and CRIU
 *       cannot bind the restored one on the same address and port.</li>
 *   <li><b>A spare</b> first takes the lost node's floating address (a macvlan of its
 *       {@code parent}) and restores in a UTS namespace of the lost node's host name: the
 *       restored processes' sockets are bound to that address and Open MPI knows them by that
 *       name.</li>
 *   <li><b>Whose rights.</b> CRIU runs as root, on the owner's tree, and its images are root's
 *       alone, on this node ({@code transparent.images}) and on shared storage
 *       ({@link #imagesOnShared}), both {@link RootOnlyDirectory}: root restores them, so no
 *       user may write a file there, and they hold the job's memory. What the images take from
 *       and put back into directories that users write to, the tree's node-local files, is read
 *       and written by {@code tar} with the owner's rights ({@link AsOwner}): root must not copy
 *       a file the owner could not read, or write through a link the owner put in its way. A
 *       restored tree must run as the owner again (every thread's uids, gids and groups in
 *       {@code /proc}), or it is killed and the restore fails.</li>
 * </ul>
 * Commands are run as the daemon's own processes ({@link NodeAgent#startOwn}), bounded by the
 * configured timeout; a failing one throws with its last lines of output.
 *
 * <p>Longer than most classes here: a dump and its restore are one conversation with CRIU
 * (what the dump records of the tree, its files and sockets, is what the restore needs back),
 * and splitting them would put one definition of the image layout in two places.
 */
final class TransparentNode {
    private static final Logger LOG = Logger.getLogger(TransparentNode.class.getName());
    private static final String FILES_LIST = "files.list";
    private static final String FILES_TAR = "files.tar";
    private static final Duration REAP_BOUND = Duration.ofSeconds(10);
    /** CRIU's refusal of a process whose leader has exited while its other threads have not yet. */
    static final String EXITING_PROCESS = "Zombies with threads are not supported";
    /** How long an exit in progress may take to finish: a process's threads end within milliseconds of its exit, unless the node is starved. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(2);

    private final String node;
    private final NodeAgent agent;
    private final FtdConfig.Transparent settings;
    /** The job's loopback ports each lock covers, by job: the stop that follows destroys their sockets. */
    private final Map<String, Set<Integer>> lockedPorts = new ConcurrentHashMap<>();

    /** The site's shared storage, as this node mounts it (null if none): never a node-local file, whatever its mount. */
    private final Path sharedStorage;

    TransparentNode(String node, NodeAgent agent, FtdConfig.Transparent settings, Path sharedStorage) {
        this.node = node;
        this.agent = agent;
        this.settings = settings;
        this.sharedStorage = sharedStorage;
    }

    /**
     * The directory on the site's shared storage that holds every transparent job's epochs,
     * root's alone: its name begins with a dot, which no user's directory there has
     * ({@link PrivateDirectories#ofUser}), so no user can have made it first under their name.
     */
    static Path imagesOnShared(Path sharedStorage) {
        return sharedStorage.resolve(".transparent");
    }

    /** Where {@code node}'s part of {@code epoch} is kept on shared storage ({@code images}: {@link #imagesOnShared}). */
    static Path sharedPart(Path images, String user, String job, long epoch, String node) {
        return epochDirectory(images, user, job, epoch).resolve(node);
    }

    static Path epochDirectory(Path images, String user, String job, long epoch) {
        return jobDirectory(images, user, job).resolve("epoch-" + epoch);
    }

    /** Where {@code user}'s {@code job}'s transparent epochs and its restores' record are kept: {@code images/USER/JOB}. */
    static Path jobDirectory(Path images, String user, String job) {
        return PrivateDirectories.ofUser(images, user).resolve(job);
    }

    /** This node's images, root's alone (made at first use, refused if another's). */
    private Path localImages() {
        return RootOnlyDirectory.ensure(settings.images());
    }

    private Path localPart(String job, long epoch) {
        return localImages().resolve(job).resolve("epoch-" + epoch);
    }

    /**
     * One step at a time on a job's files here. The coordinator waits for each step within its
     * bound; a dump that outlasts it (a slow node) goes on here, and the job's end prunes every
     * epoch meanwhile: the prune waits for the dump, or the dump would leave its images behind.
     */
    private final java.util.concurrent.ConcurrentMap<String, Object> filesOfJob = new java.util.concurrent.ConcurrentHashMap<>();

    private Object filesOf(String job) {
        return filesOfJob.computeIfAbsent(job, j -> new Object());
    }

    /**
     * The floating addresses this node took over for each job (a lost node's, for the part it
     * restored). Given back when the job is over: left here, an address would answer for a node
     * that comes back with it, and every connection to that node would reach this one. Kept in
     * memory: a daemon that crashed meanwhile leaves them (its successor does not know them).
     */
    private final java.util.concurrent.ConcurrentMap<String, Set<String>> addressesTaken = new java.util.concurrent.ConcurrentHashMap<>();

    /** See {@link #pruneFiles}; {@code Long.MAX_VALUE}: the job is over, and the addresses taken for it are given back. */
    void prune(String job, long epoch) {
        synchronized (filesOf(job)) {
            pruneFiles(job, epoch);
        }
        if (epoch == Long.MAX_VALUE) {
            giveBackAddresses(job);
        }
    }

    private void giveBackAddresses(String job) {
        Set<String> taken = addressesTaken.remove(job);
        if (taken == null) {
            return;
        }
        for (String address : taken) {
            runQuietly(List.of("ip", "addr", "del", address, "dev", settings.jobInterface()));
            LOG.info(() -> node + ": gave back floating address " + address + " taken over for " + job + ", which is over");
        }
    }

    /** See {@link #dumpFiles}. */
    TransparentPart dump(String job, long epoch, JobOwner owner) {
        synchronized (filesOf(job)) {
            return dumpFiles(job, epoch, owner);
        }
    }

    /** See {@link #stageFiles}. */
    TransparentPart stage(String job, long epoch, Path images, JobOwner owner, TransparentPart dumped) {
        synchronized (filesOf(job)) {
            return stageFiles(job, epoch, images, owner, dumped);
        }
    }

    /** See {@link #restoreFiles}. */
    long restore(String job, long epoch, Path images, JobOwner owner, TransparentPart part) {
        synchronized (filesOf(job)) {
            return restoreFiles(job, epoch, images, owner, part);
        }
    }

    /**
     * Deletes this node's images of {@code job}'s epochs before {@code epoch} (their dumps and
     * their restores' work), and the job's directory once none is left: each dump of a large job
     * is as big as its memory.
     */
    private void pruneFiles(String job, long epoch) {
        Path dir = localImages().resolve(job);
        deleteEpochsBefore(dir, epoch, "epoch-", "restore-");
        try {
            Files.deleteIfExists(dir);
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // An epoch kept.
        } catch (IOException e) {
            LOG.warning(node + ": cannot delete " + dir + ": " + e.getMessage());
        }
    }

    /** Deletes the directories {@code PREFIX-N} in {@code dir} with N before {@code epoch}, for each prefix given. */
    static void deleteEpochsBefore(Path dir, long epoch, String... prefixes) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                for (String prefix : prefixes) {
                    if (name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9]{1,18}")
                            && Long.parseLong(name.substring(prefix.length())) < epoch) {
                        FileTrees.delete(entry);
                    }
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.warning("cannot prune the epochs in " + dir + ": " + e.getMessage());
        }
    }

    private static String table(String job) {
        return "mpirunft_" + job.replace('-', '_');
    }

    /** Drops the job network's traffic on this node, and the loopback traffic of the job's own sockets. */
    void lock(String job, String network) {
        Set<Integer> ports = new java.util.TreeSet<>();
        for (long root : roots(job)) {
            ports.addAll(ProcSockets.loopbackPorts(treePids(root)));
        }
        lockedPorts.put(job, ports);
        String loopback = loopbackRules("iifname", ports);
        String out = loopbackRules("oifname", ports);
        // Priority -300: before connection tracking and any site firewall.
        String rules = "table inet " + table(job) + " {\n"
                + "  chain input { type filter hook input priority -300; policy accept; ip saddr " + network + " drop;" + loopback + " }\n"
                + "  chain output { type filter hook output priority -300; policy accept; ip daddr " + network + " drop;" + out + " }\n"
                + "}\n";
        unlock(job);
        run("locking the job network", List.of("nft", "-f", "-"), rules);
    }

    void unlock(String job) {
        runQuietly(List.of("nft", "delete", "table", "inet", table(job)));
    }

    /**
     * Removes the network locks a previous daemon of this node left: a lock lasts one dump or
     * restore, so a table at the daemon's start is one a crashed daemon held when it died (its
     * step failed, and with it the epoch or restore); kept, it would drop the job network's
     * traffic to this node for good. Returns the tables removed.
     */
    List<String> removeLeftLocks() {
        List<String> removed = new ArrayList<>();
        String tables;
        try {
            tables = run("listing the firewall's tables", List.of("nft", "list", "tables", "inet"), null);
        } catch (IllegalStateException e) {
            LOG.warning(node + ": cannot look for network locks a previous daemon left: " + e.getMessage());
            return removed;
        }
        for (String line : tables.split("\n")) {
            String[] words = line.strip().split("\\s+");
            if (words.length == 3 && words[0].equals("table") && words[1].equals("inet") && words[2].startsWith("mpirunft_")) {
                runQuietly(List.of("nft", "delete", "table", "inet", words[2]));
                removed.add(words[2]);
            }
        }
        if (!removed.isEmpty()) {
            LOG.warning(node + ": removed the network locks " + removed + " a previous daemon left (it stopped during a dump or restore)");
        }
        return removed;
    }

    /** Drops the job's loopback connections in one direction ({@code iifname} or {@code oifname}); none without ports. */
    private static String loopbackRules(String direction, Set<Integer> ports) {
        return ports.isEmpty() ? "" : " " + direction + " \"lo\" tcp sport " + set(ports) + " drop; " + direction + " \"lo\" tcp dport "
                + set(ports) + " drop;";
    }

    private static String set(Set<Integer> ports) {
        return "{ " + String.join(", ", ports.stream().map(String::valueOf).toList()) + " }";
    }

    /**
     * Dumps this node's part of the job's tree into node-local storage and leaves it running;
     * returns the part, without checksums (those come with {@link #stage}).
     */
    private TransparentPart dumpFiles(String job, long epoch, JobOwner owner) {
        Accounts.Account account = account(owner);
        long root = singleRoot(job);
        // One look at the tree for its files, IDs and sockets.
        List<Long> pids = treePids(root);
        Path dir = localPart(job, epoch);
        try {
            FileTrees.delete(dir);
            Files.createDirectories(dir);
            Files.write(dir.resolve(FILES_LIST), nodeLocalFiles(pids), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot prepare " + dir + ": " + e.getMessage(), e);
        }
        String hostname = run("reading the host name", List.of("nsenter", "-t", Long.toString(root), "-u", "hostname"), null).strip();
        List<String> endpoints = List.copyOf(ProcSockets.localEndpoints(pids));
        String address = treeAddress(interfaceAddresses(root), endpoints);
        // The node-local files are archived by CRIU's post-dump hook, while the tree is still
        // frozen. CRIU executes the hook itself, without a shell: a script file. The shell (root)
        // opens the list and the archive, in root's directory; tar reads the files as the owner.
        Path archive = dir.resolve("archive.sh");
        List<String> tar = asOwner(owner, account, List.of("tar", "-C", "/", "-cf", "-", "--no-recursion", "--ignore-failed-read", "-T", "-"));
        try {
            Files.writeString(archive, "#!/bin/sh\n[ \"$CRTOOLS_SCRIPT_ACTION\" != post-dump ] || exec " + String.join(" ",
                    tar.stream().map(TransparentNode::quoted).toList()) + " < " + quoted(dir.resolve(FILES_LIST).toString()) + " > "
                    + quoted(dir.resolve(FILES_TAR).toString()) + "\n");
            archive.toFile().setExecutable(true, true);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot write " + archive + ": " + e.getMessage(), e);
        }
        List<String> command = new ArrayList<>(List.of("nsenter", "-t", Long.toString(root), "-m", "-u", "-i", "-n", "--",
                settings.criu().toString(), "dump", "-t", Long.toString(root), "-D", dir.toString(), "--tcp-established",
                "--leave-running", "--network-lock", "skip", "--shell-job", "--file-locks", "--ghost-limit", "64M", "--action-script", archive.toString(), "-o", "dump.log"));
        List<Long> ids = threadIds(pids);
        long start = System.nanoTime();
        try {
            runCriu("dump", command, dir.resolve("dump.log"));
        } catch (IllegalStateException e) {
            if (!String.valueOf(e.getMessage()).contains(EXITING_PROCESS)) {
                throw e;
            }
            // A multi-threaded process of the tree was caught in its exit (its leader a zombie, its
            // other threads still going): on the launcher's node one of the launch agents mpirun
            // starts and that exit once their node daemon runs. CRIU, which fails before it dumps
            // anything (the tree runs on), cannot image such a process; once it is gone it can.
            List<Long> exiting = awaitNoExitingProcess(root);
            LOG.info(() -> node + ": dump of epoch " + epoch + " of " + job + " again: " + exiting + " was exiting as CRIU froze the tree");
            runCriu("dump", command, dir.resolve("dump.log"));
        }
        double dumpMillis = (System.nanoTime() - start) / 1e6;
        return new TransparentPart(node, hostname, address, root, size(dir), Map.of(), ids, dumpMillis, endpoints);
    }

    /** Copies the dumped epoch to shared storage; returns the part with every file's checksum. */
    private TransparentPart stageFiles(String job, long epoch, Path images, JobOwner owner, TransparentPart dumped) {
        Path from = localPart(job, epoch);
        Path to = sharedPart(RootOnlyDirectory.check(images), owner.name(), job, epoch, node);
        Map<String, String> sums = new TreeMap<>();
        try {
            FileTrees.delete(to);
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".log") || name.equals("archive.sh")) {
                        continue;
                    }
                    Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    sums.put(file.getFileName().toString(), sha256(file));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot stage epoch " + epoch + " of " + job + " to " + to + ": " + e.getMessage(), e);
        }
        return new TransparentPart(node, dumped.hostname(), dumped.address(), dumped.root(), dumped.bytes(), sums, dumped.ids(),
                dumped.dumpMillis(), dumped.endpoints());
    }

    /**
     * Kills this node's part of the job (already locked) and waits until its processes are gone,
     * then destroys the sockets they leave on the job network and on loopback.
     */
    void stop(String job, String network) {
        Set<Long> pids = new LinkedHashSet<>();
        for (long root : roots(job)) {
            pids.addAll(treePids(root));
        }
        // Killed on purpose: a restored mpirun's exit is no news for its launcher.
        pids.forEach(agent::unwatch);
        agent.kill(job);
        agent.launcherOf(job).ifPresent(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        long deadline = System.nanoTime() + REAP_BOUND.toNanos();
        // A restored process needs its PID back: wait until every one is reaped (we reap the node
        // daemons' trees; mpirun's parent, mpirun-ft, reaps mpirun).
        while (pids.stream().anyMatch(pid -> Files.exists(Path.of("/proc", Long.toString(pid))))) {
            agent.reapAdopted();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(node + ": job " + job + "'s processes " + pids + " were not reaped within "
                        + REAP_BOUND.toSeconds() + " s");
            }
            sleep(Duration.ofMillis(10));
        }
        StringBuilder filter = new StringBuilder("( src " + network + " or dst " + network);
        for (int port : lockedPorts.getOrDefault(job, Set.of())) {
            filter.append(" or sport = :").append(port);
        }
        filter.append(" )");
        runQuietly(List.of("ss", "-K", "-tan", filter.toString()));
    }

    /**
     * Restores {@code part} of {@code epoch} here: this node's own part from node-local storage
     * when it is whole, otherwise (and for a lost node's part) from shared storage. Returns the
     * restored root's PID.
     */
    private long restoreFiles(String job, long epoch, Path images, JobOwner owner, TransparentPart part) {
        Accounts.Account account = account(owner);
        boolean own = part.node().equals(node);
        Path local = localPart(job, epoch);
        Path dir = own && whole(local, part) ? local : sharedPart(RootOnlyDirectory.check(images), owner.name(), job, epoch, part.node());
        if (!whole(dir, part)) {
            throw new IllegalStateException(node + ": epoch " + epoch + " of " + job + " for " + part.node()
                    + " is not whole in " + dir + " (a file is missing or its checksum differs from the manifest's)");
        }
        awaitFreeIds(part);
        if (!own) {
            takeAddress(part.address());
            addressesTaken.computeIfAbsent(job, j -> java.util.concurrent.ConcurrentHashMap.newKeySet()).add(part.address());
        }
        runQuietly(List.of("ip", "neigh", "flush", "dev", settings.jobInterface()));
        dropSocketsOn(part.endpoints());
        Path work = localImages().resolve(job).resolve("restore-" + epoch);
        try {
            FileTrees.delete(work);
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot prepare " + work + ": " + e.getMessage(), e);
        }
        if (Files.exists(dir.resolve(FILES_TAR))) {
            unpackNodeLocalFiles(dir.resolve(FILES_TAR), owner, account, job, epoch);
        }
        Path pidFile = work.resolve("root.pid");
        List<String> criu = List.of(settings.criu().toString(), "restore", "-D", dir.toString(), "-W", work.toString(),
                "--tcp-established", "--restore-detached", "--network-lock", "skip", "--shell-job", "--file-locks", "--pidfile", pidFile.toString(),
                "-o", "restore.log");
        List<String> command = new ArrayList<>();
        if (!own || !currentHostname().equals(part.hostname())) {
            // Open MPI knows the processes by their host's name: the lost node's, on a spare.
            command.addAll(List.of("unshare", "--uts", "--", "/bin/sh", "-c", "hostname \"$0\" && exec \"$@\"", part.hostname()));
        }
        command.addAll(criu);
        runCriu("restore", command, work.resolve("restore.log"));
        long root;
        try {
            root = Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException(node + ": CRIU restored epoch " + epoch + " of " + job + " but wrote no root PID: "
                    + e.getMessage(), e);
        }
        requireRunsAs(root, owner, account, job);
        // The node-local files held the node daemon's TMPDIR: it goes at the job's end, as if made
        // here. Not before the tree runs: a job with no process here would lose it at once.
        agent.adoptTemps(job, owner);
        return root;
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
        List<String> members = List.of(run("listing the node-local files", List.of("tar", "-tf", archive.toString()), null).split("\n"));
        // tar -d exits 1 when it found differences, which is news here, not a failure.
        String compared = runWithInput("comparing the node-local files", asOwner(owner, account, List.of("sh", "-c",
                "tar -C / -df - 2>&1; [ $? -le 1 ]")), archive);
        List<String> command = new ArrayList<>(List.of("tar", "-C", "/", "-xpf", "-", "--no-same-owner", "--no-overwrite-dir", "--anchored",
                "--no-wildcards"));
        for (String same : unchangedMembers(members, compared)) {
            command.add("--exclude=" + same);
        }
        try {
            runWithInput("unpacking the node-local files", asOwner(owner, account, command), archive);
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
     * Every thread of the restored tree runs as the job's owner: real, effective, saved and
     * file-system uid the owner's, the gids the owner's primary group, and, for a user, the
     * owner's supplementary groups as this node knows them (as {@link AsOwner} starts the tree).
     * CRIU gives the processes the credentials in their images; this holds the restore to the
     * job's owner whatever the images say. A tree that does not is killed, and the restore fails.
     */
    private void requireRunsAs(long root, JobOwner owner, Accounts.Account account, String job) {
        List<Long> pids = treePids(root);
        for (long pid : pids) {
            for (long task : threadIds(List.of(pid))) {
                Optional<String> wrong = RestoredCredentials.mismatch(Path.of("/proc", Long.toString(pid), "task", Long.toString(task),
                        "status"), owner, account);
                if (wrong.isPresent()) {
                    pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
                    throw new IllegalStateException(node + ": the restored tree of " + job + " does not run as its owner " + owner
                            + ": pid " + pid + " thread " + task + " " + wrong.get() + "; killed it");
                }
            }
        }
        LOG.info(() -> node + ": restored tree of " + job + " runs as " + owner + " (" + pids.size() + " processes)");
    }

    /** The node's account of {@code owner} (uid, gid, groups); root's own for a root job. */
    private Accounts.Account account(JobOwner owner) {
        return AsOwner.account(owner, node);
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

    /**
     * Waits, within the reap bound, until no process or thread here has an ID of the part: the
     * killed tree's, reaped a moment after the kill. One that stays taken belongs to another
     * process, and CRIU, restoring in this node's PID namespace, cannot restore the part here.
     */
    private void awaitFreeIds(TransparentPart part) {
        long deadline = System.nanoTime() + REAP_BOUND.toNanos();
        while (true) {
            agent.reapAdopted();
            List<Long> taken = part.ids().stream().filter(id -> Files.exists(Path.of("/proc", Long.toString(id)))).toList();
            if (taken.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(node + ": cannot restore " + part.node() + "'s part here: process or thread IDs "
                        + taken + " are taken (by " + LinuxProcesses.commandName(taken.getFirst()) + ", ...), and CRIU restores them as they were");
            }
            sleep(Duration.ofMillis(10));
        }
    }

    /**
     * Waits, within {@link #EXIT_BOUND}, until no process of the tree at {@code root} is a zombie
     * with threads still exiting; returns those it saw (or waited for in vain: the second dump
     * then fails with CRIU's message, and the checkpoint is abandoned).
     */
    private static List<Long> awaitNoExitingProcess(long root) {
        Set<Long> seen = new java.util.TreeSet<>();
        long deadline = System.nanoTime() + EXIT_BOUND.toNanos();
        while (true) {
            List<Long> exiting = treePids(root).stream().filter(TransparentNode::exitingWithThreads).toList();
            seen.addAll(exiting);
            if (exiting.isEmpty() || System.nanoTime() > deadline) {
                return List.copyOf(seen);
            }
            sleep(Duration.ofMillis(10));
        }
    }

    /** Whether {@code pid} is a zombie (its leader exited) with more than one thread left, from {@code /proc}. */
    static boolean exitingWithThreads(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            String stat = Files.readString(proc.resolve("stat"));
            // The state follows the command name, which may hold spaces and parentheses: after the last ')'.
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z") && tasks.count() > 1;
        } catch (IOException | java.io.UncheckedIOException | IndexOutOfBoundsException e) {
            return false; // Gone.
        }
    }

    /** Every process and thread ID of {@code pids}. */
    private static List<Long> threadIds(List<Long> pids) {
        List<Long> ids = new ArrayList<>();
        for (long pid : pids) {
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                tasks.forEach(task -> ids.add(Long.parseLong(task.getFileName().toString())));
            } catch (IOException | NumberFormatException e) {
                ids.add(pid);
            }
        }
        return ids;
    }

    /**
     * Drops every TCP socket here bound to one of {@code endpoints}, whatever its state: the
     * connections Open MPI closed itself after the node loss (its abort runs before the
     * scheduler's decision, so before our lock) wait in TIME_WAIT, and one on the local port of a
     * restored listener makes CRIU's bind fail ("Address already in use").
     */
    private void dropSocketsOn(List<String> endpoints) {
        for (int from = 0; from < endpoints.size(); from += 64) {
            List<String> some = endpoints.subList(from, Math.min(endpoints.size(), from + 64));
            runQuietly(List.of("ss", "-K", "-tan", "( " + String.join(" or ", some.stream().map(e -> "src " + e).toList()) + " )"));
        }
    }

    /** Puts a lost node's floating address on this node's job interface, creating it as a macvlan of the parent if needed. */
    private void takeAddress(String address) {
        String iface = settings.jobInterface();
        if (!Files.exists(Path.of("/sys/class/net", iface))) {
            run("creating " + iface, List.of("ip", "link", "add", iface, "link", settings.parent(), "type", "macvlan", "mode", "bridge"), null);
        }
        runQuietly(List.of("ip", "addr", "add", address, "dev", iface));
        run("bringing " + iface + " up", List.of("ip", "link", "set", iface, "up"), null);
        LOG.info(() -> node + ": took over floating address " + address + " on " + iface);
    }

    /** The job network (CIDR) as this node's job interface holds it: the network of its first IPv4 address. */
    String jobNetwork() {
        try {
            java.net.NetworkInterface iface = java.net.NetworkInterface.getByName(settings.jobInterface());
            if (iface != null) {
                for (java.net.InterfaceAddress address : iface.getInterfaceAddresses()) {
                    if (address.getAddress() instanceof java.net.Inet4Address v4) {
                        int prefix = address.getNetworkPrefixLength();
                        byte[] bytes = v4.getAddress();
                        int value = java.nio.ByteBuffer.wrap(bytes).getInt();
                        int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
                        byte[] net = java.nio.ByteBuffer.allocate(4).putInt(value & mask).array();
                        return java.net.InetAddress.getByAddress(net).getHostAddress() + "/" + prefix;
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException(node + ": cannot read the job interface " + settings.jobInterface() + ": " + e.getMessage(), e);
        }
        throw new IllegalStateException(node + ": the job interface " + settings.jobInterface()
                + " has no IPv4 address here; transparent mode needs one on every node that runs its jobs, the launcher's and the"
                + " spares' included (transparent.interface)");
    }

    /** The IPv4 addresses (CIDR) of the job interface as the tree sees it, in the kernel's order (the node's own first). */
    private List<String> interfaceAddresses(long root) {
        String out = run("reading the job network's address", List.of("nsenter", "-t", Long.toString(root), "-n", "ip", "-o", "-4",
                "addr", "show", "dev", settings.jobInterface()), null);
        List<String> addresses = new ArrayList<>();
        for (String word : out.split("\\s+")) {
            if (word.matches("\\d+\\.\\d+\\.\\d+\\.\\d+/\\d+")) {
                addresses.add(word);
            }
        }
        if (addresses.isEmpty()) {
            throw new IllegalStateException(node + ": the job interface " + settings.jobInterface() + " has no IPv4 address");
        }
        return addresses;
    }

    /**
     * The floating address a part is restored with: the one of the job interface's addresses
     * ({@code addresses}, CIDR) that the tree's sockets are bound to ({@code endpoints},
     * {@code ADDRESS:PORT}). A spare that restored a lost node's part holds that node's address
     * besides its own, and its tree runs on the lost node's: the next restore of this part, on
     * another spare, must take that one. A tree with no socket on the job network: the first.
     */
    static String treeAddress(List<String> addresses, List<String> endpoints) {
        for (String address : addresses) {
            String ip = address.substring(0, address.indexOf('/'));
            if (endpoints.stream().anyMatch(e -> e.startsWith(ip + ":"))) {
                return address;
            }
        }
        return addresses.get(0);
    }

    private static String currentHostname() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Whether every file the manifest lists is in {@code dir} with its checksum. */
    private static boolean whole(Path dir, TransparentPart part) {
        if (part.sha256().isEmpty()) {
            return false;
        }
        for (Map.Entry<String, String> file : part.sha256().entrySet()) {
            Path path = dir.resolve(file.getKey());
            try {
                if (!Files.isRegularFile(path) || !sha256(path).equals(file.getValue())) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** The roots of the job's process trees here: its mpirun on the launcher's node, else the node daemons the agent started. */
    private List<Long> roots(String job) {
        Optional<Long> launcher = agent.launcherOf(job);
        if (launcher.isPresent()) {
            return List.of(launcher.get());
        }
        return agent.jobRoots(job);
    }

    private long singleRoot(String job) {
        List<Long> roots = roots(job);
        if (roots.size() != 1) {
            throw new IllegalStateException(node + ": transparent mode dumps one process tree of a job per node; job " + job
                    + " has " + roots.size() + " here " + roots);
        }
        return roots.getFirst();
    }

    private static List<Long> treePids(long root) {
        List<Long> pids = new ArrayList<>();
        ProcessHandle.of(root).ifPresent(handle -> {
            pids.add(root);
            handle.descendants().forEach(d -> pids.add(d.pid()));
        });
        return pids;
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

    private static long size(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            int n;
            while ((n = in.read(buffer)) > 0) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs CRIU; a failure throws with CRIU's error lines from its log. */
    private void runCriu(String what, List<String> command, Path log) {
        try {
            run("CRIU " + what, command, null);
        } catch (IllegalStateException e) {
            String errors = "";
            try (Stream<String> lines = Files.lines(log)) {
                errors = String.join(" | ", lines.filter(l -> l.contains("Error")).filter(l -> !l.contains("RLIMIT_NOFILE"))
                        .limit(4).toList());
            } catch (IOException | java.io.UncheckedIOException ignored) {
                // No log: the message says what the command said.
            }
            // prlimit(2) on another user's process needs CAP_SYS_RESOURCE: say so, not only CRIU's errno.
            String hint = errors.contains("Can't get rlimit") ? "; CRIU cannot read another user's resource limits: the daemon needs"
                    + " CAP_SYS_RESOURCE" : "";
            throw new IllegalStateException(e.getMessage() + (errors.isEmpty() ? "" : "; CRIU's log " + log + ": " + errors) + hint, e);
        }
    }

    private void runQuietly(List<String> command) {
        try {
            run(command.getFirst(), command, null);
        } catch (IllegalStateException e) {
            LOG.fine(() -> node + ": " + e.getMessage());
        }
    }

    /** Runs {@code command} with {@code input} on its stdin; returns its output, or throws naming {@code what} and its last lines. */
    private String run(String what, List<String> command, String input) {
        return run(what, command, input, null);
    }

    /** Runs {@code command} with the file {@code input} on its stdin, opened here (by root). */
    private String runWithInput(String what, List<String> command, Path input) {
        return run(what, command, null, input);
    }

    private String run(String what, List<String> command, String input, Path inputFile) {
        Path output = null;
        try {
            // To a file, not a pipe: a command that hangs must not hold the daemon past the timeout in a read.
            output = Files.createTempFile("ftd-transparent-", ".out");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            if (inputFile != null) {
                builder.redirectInput(inputFile.toFile());
            }
            Process process = agent.startOwn(builder);
            try (var stdin = process.getOutputStream()) {
                if (input != null && inputFile == null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(settings.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(node + ": " + what + " did not end within " + settings.timeout().toSeconds() + " s");
            }
            String text = Files.readString(output);
            if (process.exitValue() != 0) {
                String[] lines = text.strip().split("\n");
                String tail = String.join(" | ", java.util.Arrays.asList(lines).subList(Math.max(0, lines.length - 3), lines.length));
                throw new IllegalStateException(node + ": " + what + " failed (" + command.getFirst() + " exited with "
                        + process.exitValue() + (tail.isBlank() ? "" : ": " + tail) + ")");
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException(node + ": " + what + ": cannot run " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(node + ": interrupted while " + what, e);
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException ignored) {
                    // A temporary file left behind.
                }
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
