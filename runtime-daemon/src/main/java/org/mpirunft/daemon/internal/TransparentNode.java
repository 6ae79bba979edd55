package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.logging.Logger;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;

/**
 * This node's part of transparent jobs: its part of a job's process tree (Open MPI's node
 * daemon and its ranks, or mpirun on the launcher's node) dumped and restored with CRIU, and the
 * node's share of the lock that keeps the job's TCP state consistent across nodes. Each step
 * the coordinator sends ({@code TransparentStep}) is one method here; this class holds the
 * conversation with CRIU (what a dump records of the tree, its files and sockets, is what the
 * restore needs back) and one step at a time on a job's files, and leaves the rest to its
 * parts.
 *
 * <p><b>Why each step is as it is.</b>
 * <ul>
 *   <li><b>The lock</b> is our own nftables table, not CRIU's ({@link JobNetworkLock}): every
 *       node drops the job network's traffic before any node dumps, until all did.</li>
 *   <li><b>Node-local files</b> the tree holds open or mapped under {@code /tmp} and
 *       {@code /dev/shm} (PRRTE's session directory, PMIx's shared segments) go into the images
 *       ({@link NodeLocalArchive}): CRIU reopens files by path, and a spare has none of them.</li>
 *   <li><b>A stop before a restore</b> kills the tree under the lock ({@link JobTree}) and then
 *       destroys the sockets it leaves: a killed process's connection lingers (its FIN is
 *       dropped), and CRIU cannot bind the restored one on the same address and port.</li>
 *   <li><b>A spare</b> first takes the lost node's floating address ({@link JobInterface}: a
 *       macvlan of its {@code parent}) and restores in a UTS namespace of the lost node's host
 *       name: the restored processes' sockets are bound to that address and Open MPI knows them
 *       by that name.</li>
 *   <li><b>Whose rights.</b> CRIU runs as root, on the owner's tree, and its images are root's
 *       alone, on this node ({@code transparent.images}) and on shared storage
 *       ({@link TransparentImages#imagesOnShared}), both {@link RootOnlyDirectory}: root restores
 *       them, so no user may write a file there, and they hold the job's memory. What the images
 *       take from and put back into directories that users write to, the tree's node-local
 *       files, is read and written by {@code tar} with the owner's rights ({@link AsOwner}): root
 *       must not copy a file the owner could not read, or write through a link the owner put in
 *       its way. A restored tree must run as the owner again (every thread's uids, gids and
 *       groups in {@code /proc}), or it is killed and the restore fails.</li>
 * </ul>
 * Commands are run as the daemon's own processes ({@link StepCommands}), bounded by the
 * configured timeout; a failing one throws with its last lines of output.
 */
final class TransparentNode {
    private static final Logger LOG = Logger.getLogger(TransparentNode.class.getName());
    /** CRIU's refusal of a process whose leader has exited while its other threads have not yet. */
    static final String EXITING_PROCESS = "Zombies with threads are not supported";

    private final String node;
    private final NodeAgent agent;
    private final FtdConfig.Transparent settings;
    private final StepCommands commands;
    private final TransparentImages images;
    private final JobTree tree;
    private final JobNetworkLock lock;
    private final JobInterface jobInterface;
    private final NodeLocalArchive files;

    TransparentNode(String node, NodeAgent agent, FtdConfig.Transparent settings, Path sharedStorage) {
        this.node = node;
        this.agent = agent;
        this.settings = settings;
        this.commands = new StepCommands(node, agent, settings.timeout());
        this.images = new TransparentImages(node, settings.images());
        this.tree = new JobTree(node, agent);
        this.lock = new JobNetworkLock(node, commands, tree);
        this.jobInterface = new JobInterface(node, settings, commands);
        this.files = new NodeLocalArchive(node, commands, sharedStorage);
    }

    /**
     * One step at a time on a job's files here. The coordinator waits for each step within its
     * bound; a dump that outlasts it (a slow node) goes on here, and the job's end prunes every
     * epoch meanwhile: the prune waits for the dump, or the dump would leave its images behind.
     */
    private final ConcurrentMap<String, Object> filesOfJob = new ConcurrentHashMap<>();

    private Object filesOf(String job) {
        return filesOfJob.computeIfAbsent(job, j -> new Object());
    }

    /**
     * Deletes this node's images of {@code job}'s epochs before {@code epoch}
     * ({@link TransparentImages#prune}); {@code Long.MAX_VALUE}: the job is over, and the
     * addresses taken for it are given back.
     */
    void prune(String job, long epoch) {
        synchronized (filesOf(job)) {
            images.prune(job, epoch);
        }
        if (epoch == Long.MAX_VALUE) {
            jobInterface.giveBackAddresses(job);
            // Over: nothing of the job is dumped or restored here again, so its entries go (a
            // daemon runs for months, and each job would otherwise leave two behind).
            filesOfJob.remove(job);
            lock.forget(job);
        }
    }

    /** See {@link #dumpFiles}. */
    TransparentPart dump(String job, long epoch, JobOwner owner) {
        synchronized (filesOf(job)) {
            return dumpFiles(job, epoch, owner);
        }
    }

    /** Copies the dumped epoch to shared storage ({@link TransparentImages#stage}). */
    TransparentPart stage(String job, long epoch, Path images, JobOwner owner, TransparentPart dumped) {
        synchronized (filesOf(job)) {
            return this.images.stage(job, epoch, images, owner, dumped);
        }
    }

    /** See {@link #restoreFiles}. */
    long restore(String job, long epoch, Path images, JobOwner owner, TransparentPart part) {
        synchronized (filesOf(job)) {
            return restoreFiles(job, epoch, images, owner, part);
        }
    }

    /** Drops the job network's traffic on this node, and the loopback traffic of the job's own sockets. */
    void lock(String job, String network) {
        lock.lock(job, network);
    }

    void unlock(String job) {
        lock.unlock(job);
    }

    /** Removes the network locks a previous daemon of this node left ({@link JobNetworkLock#removeLeftLocks}). */
    List<String> removeLeftLocks() {
        return lock.removeLeftLocks();
    }

    /** The job network (CIDR) as this node's job interface holds it ({@link JobInterface#jobNetwork}). */
    String jobNetwork() {
        return jobInterface.jobNetwork();
    }

    /**
     * Dumps this node's part of the job's tree into node-local storage and leaves it running;
     * returns the part, without checksums (those come with {@link #stage}).
     */
    private TransparentPart dumpFiles(String job, long epoch, JobOwner owner) {
        Accounts.Account account = account(owner);
        long root = tree.singleRoot(job);
        // One look at the tree for its files, IDs and sockets.
        List<Long> pids = JobTree.treePids(root);
        Path dir = images.localPart(job, epoch);
        try {
            FileTrees.delete(dir);
            Files.createDirectories(dir);
            files.writeList(dir, pids);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot prepare " + dir + ": " + e.getMessage(), e);
        }
        String hostname = commands.run("reading the host name", List.of("nsenter", "-t", Long.toString(root), "-u", "hostname"), null)
                .strip();
        List<String> endpoints = List.copyOf(ProcSockets.localEndpoints(pids));
        String address = jobInterface.addressOf(root, endpoints);
        // The node-local files are archived by CRIU's post-dump hook, while the tree is still frozen.
        Path archive = files.writeHook(dir, owner, account);
        List<String> command = new ArrayList<>(List.of("nsenter", "-t", Long.toString(root), "-m", "-u", "-i", "-n", "--",
                settings.criu().toString(), "dump", "-t", Long.toString(root), "-D", dir.toString(), "--tcp-established",
                "--leave-running", "--network-lock", "skip", "--shell-job", "--file-locks", "--ghost-limit", "64M", "--action-script", archive.toString(), "-o", "dump.log"));
        List<Long> ids = JobTree.threadIds(pids);
        long start = System.nanoTime();
        try {
            commands.runCriu("dump", command, dir.resolve("dump.log"));
        } catch (IllegalStateException e) {
            if (!String.valueOf(e.getMessage()).contains(EXITING_PROCESS)) {
                throw e;
            }
            // A multi-threaded process of the tree was caught in its exit (its leader a zombie, its
            // other threads still going): on the launcher's node one of the launch agents mpirun
            // starts and that exit once their node daemon runs. CRIU, which fails before it dumps
            // anything (the tree runs on), cannot image such a process; once it is gone it can.
            List<Long> exiting = JobTree.awaitNoExitingProcess(root);
            LOG.info(() -> node + ": dump of epoch " + epoch + " of " + job + " again: " + exiting + " was exiting as CRIU froze the tree");
            commands.runCriu("dump", command, dir.resolve("dump.log"));
        }
        double dumpMillis = (System.nanoTime() - start) / 1e6;
        return new TransparentPart(node, hostname, address, root, TransparentImages.size(dir), Map.of(), ids, dumpMillis, endpoints);
    }

    /**
     * Kills this node's part of the job (already locked) and waits until its processes are gone,
     * then destroys the sockets they leave on the job network and on loopback.
     */
    void stop(String job, String network) {
        tree.killAndReap(job);
        lock.dropSocketsOf(job, network);
    }

    /**
     * Restores {@code part} of {@code epoch} here: this node's own part from node-local storage
     * when it is whole, otherwise (and for a lost node's part) from shared storage. Returns the
     * restored root's PID.
     */
    private long restoreFiles(String job, long epoch, Path images, JobOwner owner, TransparentPart part) {
        Accounts.Account account = account(owner);
        boolean own = part.node().equals(node);
        Path dir = this.images.restoreSource(job, epoch, images, owner, part);
        tree.awaitFreeIds(part);
        jobInterface.readyFor(job, part, own);
        Path work = this.images.restoreWork(job, epoch);
        try {
            FileTrees.delete(work);
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot prepare " + work + ": " + e.getMessage(), e);
        }
        files.unpack(dir, owner, account, job, epoch);
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
        commands.runCriu("restore", command, work.resolve("restore.log"));
        long root;
        try {
            root = Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException(node + ": CRIU restored epoch " + epoch + " of " + job + " but wrote no root PID: "
                    + e.getMessage(), e);
        }
        tree.requireRunsAs(root, owner, account, job);
        // The node-local files held the node daemon's TMPDIR: it goes at the job's end, as if made
        // here. Not before the tree runs: a job with no process here would lose it at once.
        agent.adoptTemps(job, owner);
        return root;
    }

    private static String currentHostname() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** The node's account of {@code owner} (uid, gid, groups); root's own for a root job. */
    private Accounts.Account account(JobOwner owner) {
        return AsOwner.account(owner, node);
    }
}
