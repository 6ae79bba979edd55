package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.PeerMessage.Step;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * Carries out the checkpoints and restores the scheduler orders for the transparent jobs
 * launched from this node: the daemon of a job's launcher node runs each step on every node of
 * the job, and the next step only once every node did the last ({@link PeerMessage.Step}).
 *
 * <pre>
 *   checkpoint: PRUNE all (epochs before the committed one), LOCK all, DUMP all, UNLOCK all,
 *               STAGE all, write the manifest, epoch committed
 *   restore:    LOCK live nodes and spares, STOP live nodes, RESTORE (survivors their own part,
 *               each spare its lost node's), UNLOCK, recovery completed
 * </pre>
 *
 * The scheduler decides (when to checkpoint, that a node is lost, which spare takes it); this
 * only executes, one operation at a time, and reports back as the ranks of a pause-mode job do:
 * an epoch committed or abandoned, a recovery completed, or a restart needed when no committed
 * epoch can be restored. An epoch counts once its manifest is on shared storage: a part
 * whose files do not match the manifest's checksums is never restored.
 *
 * <p>The epochs, manifests included, are kept in a directory of the site's shared storage that
 * is root's alone ({@link TransparentImages#imagesOnShared}, {@link RootOnlyDirectory}), under the
 * job's owner's name: never in the job's own checkpoint directory, which is its owner's to write,
 * since the daemon restores what it finds as root.
 */
final class TransparentCoordinator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(TransparentCoordinator.class.getName());
    static final String MANIFEST = "manifest.json";

    /** Runs one step on one node: here, or through that node's daemon. */
    interface Steps {
        ControlReply call(String node, PeerMessage.TransparentStep step);
    }

    /** What an epoch's manifest holds: every node's part, by the node it was dumped on. */
    record Manifest(int version, String job, long epoch, Map<String, TransparentPart> parts) {
        static final int VERSION = 1;

        Manifest {
            parts = Map.copyOf(parts);
        }
    }

    private final String self;
    private final SchedulerPort scheduler;
    private final Steps steps;
    /** The root-only directory of every transparent job's epochs on shared storage. */
    private final Path images;
    private final java.util.function.Supplier<String> network;
    /** Whether this daemon may read other users' processes' resource limits, as CRIU's dump does. */
    private final java.util.function.BooleanSupplier dumpsOthers;
    /** Jobs whose launcher said they are over: no step of theirs starts any more. */
    private final Set<String> finished = ConcurrentHashMap.newKeySet();
    /** One operation at a time: a checkpoint ordered before a failure runs after the restore, and is then dropped. */
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "ftd-transparent");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param shared  the site's shared storage (the scheduler's), where the root-only directory of the epochs is
     * @param network the job network (CIDR) that the lock covers, as this node's job interface has it
     */
    TransparentCoordinator(String self, SchedulerPort scheduler, Steps steps, Path shared, java.util.function.Supplier<String> network) {
        this(self, scheduler, steps, shared, network, () -> hasCapability(CAP_SYS_RESOURCE));
    }

    /** @param dumpsOthers whether CRIU, run by this daemon, can dump another user's processes ({@link #accept}) */
    TransparentCoordinator(String self, SchedulerPort scheduler, Steps steps, Path shared, java.util.function.Supplier<String> network,
                           java.util.function.BooleanSupplier dumpsOthers) {
        this.self = self;
        this.scheduler = scheduler;
        this.steps = steps;
        this.images = TransparentImages.imagesOnShared(shared);
        this.network = network;
        this.dumpsOthers = dumpsOthers;
    }

    private static final int CAP_SYS_RESOURCE = 24;

    /** Whether this process's effective capabilities hold {@code capability}, from /proc/self/status. */
    static boolean hasCapability(int capability) {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(line -> line.startsWith("CapEff:")).findFirst()
                    .map(line -> (Long.parseUnsignedLong(line.substring("CapEff:".length()).strip(), 16) >>> capability & 1) == 1)
                    .orElse(false);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    /**
     * Whether {@code owner} may start a transparent job here, checked when it is registered, so
     * that a job that could never be checkpointed is refused at its start rather than run
     * unprotected: root's directory of the epochs must be usable ({@link #requireImages}), and
     * for a user's job the daemon must hold CAP_SYS_RESOURCE, without which CRIU cannot read
     * the resource limits of another user's processes (prlimit(2)) and dumps none of them. A
     * root whose capabilities were cut (a confined container, a VM's restricted init) lacks it.
     *
     * @throws IllegalStateException one line
     */
    void accept(JobOwner owner) {
        requireImages();
        if (!owner.isRoot() && !dumpsOthers.getAsBoolean()) {
            throw new IllegalStateException("transparent jobs of users other than root cannot run on " + self + ": its daemon lacks "
                    + "CAP_SYS_RESOURCE, without which CRIU cannot read another user's resource limits; run ftd as root with its full "
                    + "capabilities, or run the job with --recovery pause");
        }
    }

    /**
     * Makes the root-only directory of the epochs, or checks the one there; a transparent job is
     * registered only once it is usable.
     *
     * @throws IllegalStateException one line, for the user who registers the job and for the operator
     */
    void requireImages() {
        try {
            RootOnlyDirectory.ensure(images);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("transparent jobs cannot run: " + e.getMessage(), e);
        }
    }

    /**
     * The job is over (its mpirun-ft says so as it exits): no further step of it starts, and this
     * returns once the operation under way, if any, has ended, within {@code bound}. After it,
     * nothing is written into the job's directory: its user may delete it. The nodes' images of
     * the job are deleted afterwards.
     */
    void jobFinished(String job, Duration bound) {
        finished.add(job);
        try {
            executor.submit(() -> {
            }).get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warning(self + ": a transparent step of " + job + " still runs " + bound.toSeconds() + " s after the job ended");
        } catch (ExecutionException | java.util.concurrent.RejectedExecutionException e) {
            LOG.fine(() -> self + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Read now: the job leaves the scheduler's table as this returns, before the prune runs.
        JobRecord record = scheduler.job(job).orElse(null);
        if (record == null) {
            LOG.fine(() -> self + ": " + job + " is not in the scheduler's table; no images of it to prune");
            return;
        }
        // The nodes' images go; the last epoch stays on shared storage, as other modes' checkpoints do.
        try {
            executor.execute(() -> prune(record, Long.MAX_VALUE));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.fine(() -> self + ": closing; " + job + "'s images stay on its nodes");
        }
    }

    /**
     * Deletes the job's epochs before {@code epoch}: on shared storage (not once the job is
     * over), and each node's images. A node that cannot prune keeps its images until the next
     * time; nothing else waits on it.
     */
    private void prune(JobRecord job, long epoch) {
        if (epoch <= 1) {
            return;
        }
        if (epoch != Long.MAX_VALUE) {
            TransparentImages.deleteEpochsBefore(jobDirectory(job), epoch, "epoch-");
        }
        try {
            each(nodesOf(job), node -> step(job, Step.PRUNE, epoch, null));
        } catch (RuntimeException e) {
            LOG.warning(self + ": pruning " + job.job() + "'s images before epoch " + epoch + ": " + e.getMessage());
        }
    }

    private void requireRunning(String job) {
        if (finished.contains(job)) {
            throw new IllegalStateException("job " + job + " finished meanwhile");
        }
    }

    /** {@code IMAGES/USER/JOB}: the job's epochs and its restores' record. */
    private Path jobDirectory(JobRecord job) {
        return TransparentImages.jobDirectory(images, job.owner().name(), job.job());
    }

    /** A transition of any job; acts on those of transparent jobs launched from this node. */
    void onTransition(JobTransition transition) {
        JobRecord job = transition.after();
        if (job == null || job.mode() != RecoveryMode.TRANSPARENT || !self.equals(job.launcher())) {
            return;
        }
        switch (transition.update()) {
            case SchedulerUpdate.CheckpointOrdered u -> executor.execute(() -> checkpoint(u.job(), u.epoch()));
            case SchedulerUpdate.RecoveryStarted u -> executor.execute(() -> restore(u.job(), u.failureId()));
            case SchedulerUpdate.RecoveryExtended u -> executor.execute(() -> restore(u.job(), u.failureId()));
            default -> {
            }
        }
    }

    /** The job's nodes: where its ranks run, and this launcher node (mpirun). */
    private List<String> nodesOf(JobRecord job) {
        Set<String> nodes = new LinkedHashSet<>(job.rankNodes());
        nodes.add(self);
        return List.copyOf(nodes);
    }

    private void checkpoint(String jobName, long epoch) {
        JobRecord job = scheduler.job(jobName).orElse(null);
        if (finished.contains(jobName)) {
            return;
        }
        if (job == null || job.state() != JobState.RUNNING || job.orderedEpoch() != epoch) {
            LOG.info(() -> self + ": checkpoint " + epoch + " of " + jobName + " dropped: the job is "
                    + (job == null ? "gone" : job.state() + ", order " + job.orderedEpoch()));
            if (job != null && job.state().isLive() && job.orderedEpoch() == epoch) {
                scheduler.checkpointAbandoned(jobName, epoch, epoch, "the job is " + job.state().name().toLowerCase());
            }
            return;
        }
        List<String> nodes = nodesOf(job);
        try {
            requireImages();
        } catch (IllegalStateException e) {
            LOG.warning(self + ": transparent checkpoint " + epoch + " of " + jobName + " abandoned: " + e.getMessage());
            scheduler.checkpointAbandoned(jobName, epoch, epoch, e.getMessage());
            return;
        }
        // Only the committed epoch (as the scheduler recorded it, which a failure may have kept
        // from moving on) is a recovery line: the older ones go before this one is written.
        prune(job, job.committedEpoch());
        long start = System.nanoTime();
        try {
            Map<String, TransparentPart> dumped;
            try {
                all(nodes, node -> step(job, Step.LOCK, 0, null));
                dumped = all(nodes, node -> step(job, Step.DUMP, epoch, null));
            } finally {
                unlockAll(job, nodes);
            }
            Duration stall = Duration.ofNanos(System.nanoTime() - start);
            requireRunning(jobName);
            Map<String, TransparentPart> staged = all(nodes, node -> step(job, Step.STAGE, epoch, dumped.get(node)));
            requireRunning(jobName);
            writeManifest(job, new Manifest(Manifest.VERSION, jobName, epoch, staged));
            long bytes = staged.values().stream().mapToLong(TransparentPart::bytes).sum();
            LOG.info(() -> self + ": transparent epoch " + epoch + " of " + jobName + " committed: " + nodes.size() + " nodes, "
                    + bytes / 1024 + " KiB, job stalled " + stall.toMillis() + " ms, staged "
                    + (System.nanoTime() - start) / 1_000_000 + " ms after the lock");
            scheduler.epochCommitted(jobName, epoch, epoch, stall);
        } catch (RuntimeException e) {
            if (finished.contains(jobName)) {
                LOG.info(() -> self + ": transparent checkpoint " + epoch + " of " + jobName + " dropped: the job finished");
                return;
            }
            LOG.warning(self + ": transparent checkpoint " + epoch + " of " + jobName + " failed: " + e.getMessage());
            try {
                scheduler.checkpointAbandoned(jobName, epoch, epoch, String.valueOf(e.getMessage()));
            } catch (RuntimeException again) {
                LOG.warning(self + ": cannot report the abandoned checkpoint: " + again.getMessage());
            }
        }
    }

    private void restore(String jobName, String failureId) {
        JobRecord job = scheduler.job(jobName).orElse(null);
        if (finished.contains(jobName) || job == null || job.state() != JobState.PAUSING || job.recovery().isEmpty()
                || !job.recovery().get().failureId().equals(failureId)) {
            return; // Done already, or superseded by a later decision that has its own turn.
        }
        JobRecord.Recovery recovery = job.recovery().get();
        long epoch = job.committedEpoch();
        long start = System.nanoTime();
        try {
            if (epoch <= 0) {
                throw new IllegalStateException("no transparent epoch committed yet");
            }
            Manifest manifest = readManifest(job, epoch);
            // The lost nodes' parts go to the spares chosen for their ranks: a node's part is one
            // process tree, so all its ranks follow the first one's placement.
            Map<String, String> spareOf = new TreeMap<>();
            new TreeMap<>(recovery.lostRanks()).forEach((rank, node) -> spareOf.putIfAbsent(node, recovery.placement().get(rank)));
            List<String> live = nodesOf(job).stream().filter(n -> !spareOf.containsKey(n)).toList();
            List<String> targets = new ArrayList<>(live);
            spareOf.values().stream().filter(s -> !targets.contains(s)).forEach(targets::add);
            Map<String, TransparentPart> partFor = new TreeMap<>();
            for (String node : live) {
                partFor.put(node, part(manifest, node));
            }
            spareOf.forEach((lost, spare) -> partFor.put(spare, part(manifest, lost)));
            LOG.info(() -> self + ": restoring " + jobName + " from transparent epoch " + epoch + " on " + targets
                    + (spareOf.isEmpty() ? "" : ", " + spareOf + " (lost node -> spare)"));
            long stopped;
            Map<String, ControlReply.StepDone> stops;
            Map<String, ControlReply.StepDone> restores;
            try {
                all(targets, node -> step(job, Step.LOCK, 0, null));
                stops = each(live, node -> step(job, Step.STOP, 0, null));
                stopped = System.nanoTime();
                restores = each(targets, node -> step(job, Step.RESTORE, epoch, partFor.get(node)));
            } finally {
                unlockAll(job, targets);
            }
            long done = System.nanoTime();
            List<String> rankNodes = new ArrayList<>(job.rankNodes());
            rankNodes.replaceAll(node -> spareOf.getOrDefault(node, node));
            double stopMillis = (stopped - start) / 1e6;
            double restoreMillis = (done - stopped) / 1e6;
            // The split's fields as a transparent restore fills them: shrink is the stop, load the restore.
            RankMessage.RecoverySplit split = new RankMessage.RecoverySplit(stopMillis, 0, 0, 0, 0, 0, restoreMillis,
                    (done - start) / 1e6, List.of());
            LOG.info(() -> self + ": " + jobName + " restored from epoch " + epoch + " in " + Math.round((done - start) / 1e6)
                    + " ms (stop " + Math.round(stopMillis) + " ms, restore " + Math.round(restoreMillis) + " ms); ranks on " + rankNodes);
            recordRestore(job, new Restore(Restore.VERSION, jobName, failureId, epoch, spareOf, millisOf(stops), millisOf(restores),
                    (done - start) / 1e6));
            scheduler.recoveryCompleted(jobName, failureId, rankNodes, epoch, -1, split);
        } catch (RuntimeException e) {
            LOG.warning(self + ": transparent restore of " + jobName + " failed: " + e.getMessage());
            try {
                scheduler.restartNeeded(jobName, "transparent", "restore from epoch " + epoch + " failed: " + e.getMessage(), null);
            } catch (RuntimeException again) {
                LOG.warning(self + ": cannot ask for a restart: " + again.getMessage());
            }
        }
    }

    /**
     * One restore's record, a line of {@code transparent/restores.jsonl} beside the epochs: what
     * each node's steps took, for the benchmark and for people; nothing reads it to decide.
     *
     * @param onto    each lost node's spare
     * @param stopMs  each live node's STOP step
     * @param restoreMs each node's RESTORE step, by the node it ran on
     */
    record Restore(int version, String job, String failureId, long epoch, Map<String, String> onto, Map<String, Double> stopMs,
                   Map<String, Double> restoreMs, double totalMs) {
        static final int VERSION = 1;
    }

    private static Map<String, Double> millisOf(Map<String, ControlReply.StepDone> replies) {
        Map<String, Double> millis = new TreeMap<>();
        replies.forEach((node, done) -> millis.put(node, done.millis()));
        return millis;
    }

    private void recordRestore(JobRecord job, Restore restore) {
        Path file = jobDirectory(job).resolve("restores.jsonl");
        try {
            Files.writeString(file, JsonLines.encode(restore) + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            LOG.warning(self + ": cannot record the restore in " + file + ": " + e.getMessage());
        }
    }

    private static TransparentPart part(Manifest manifest, String node) {
        TransparentPart part = manifest.parts().get(node);
        if (part == null) {
            throw new IllegalStateException("epoch " + manifest.epoch() + "'s manifest has no part of " + node);
        }
        return part;
    }

    /**
     * {@code step} of {@code job}, naming the job's owner as the scheduler recorded it at
     * registration (SO_PEERCRED), for every node alike. The record is the one the operation read
     * at its start: the job's end takes it out of the scheduler's table while its prune is still
     * to run.
     */
    private PeerMessage.TransparentStep step(JobRecord job, Step step, long epoch, TransparentPart part) {
        return new PeerMessage.TransparentStep(PeerMessage.VERSION, job.job(), step, epoch, network.get(), images.toString(), part,
                job.owner());
    }

    /** Runs a step on every node at once; returns each node's part (none where the step gives none); throws naming every node where it failed. */
    private Map<String, TransparentPart> all(List<String> nodes, java.util.function.Function<String, PeerMessage.TransparentStep> step) {
        Map<String, TransparentPart> parts = new TreeMap<>();
        each(nodes, step).forEach((node, done) -> {
            if (done.part() != null) {
                parts.put(node, done.part());
            }
        });
        return parts;
    }

    /** Runs a step on every node at once; returns each node's reply; throws naming every node where it failed. */
    private Map<String, ControlReply.StepDone> each(List<String> nodes,
                                                    java.util.function.Function<String, PeerMessage.TransparentStep> step) {
        Map<String, ControlReply> replies = new ConcurrentHashMap<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String node : nodes) {
                threads.execute(() -> {
                    ControlReply reply;
                    try {
                        reply = steps.call(node, step.apply(node));
                    } catch (RuntimeException e) {
                        reply = new ControlReply.Failed(ControlReply.VERSION, org.mpirunft.daemon.protocol.ErrorCode.INTERNAL,
                                node + ": " + e.getMessage());
                    }
                    replies.put(node, reply);
                });
            }
        }
        List<String> failures = new ArrayList<>();
        Map<String, ControlReply.StepDone> done = new TreeMap<>();
        for (String node : nodes) {
            switch (replies.get(node)) {
                case ControlReply.StepDone reply -> done.put(node, reply);
                case ControlReply.Failed failed -> failures.add(failed.message());
                case ControlReply other -> failures.add(node + ": unexpected reply " + other.getClass().getSimpleName());
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException(String.join("; ", failures));
        }
        return done;
    }

    private void unlockAll(JobRecord job, List<String> nodes) {
        try {
            all(nodes, node -> step(job, Step.UNLOCK, 0, null));
        } catch (RuntimeException e) {
            LOG.warning(self + ": unlocking " + job.job() + "'s network: " + e.getMessage());
        }
    }

    private void writeManifest(JobRecord job, Manifest manifest) {
        Path dir = jobDirectory(job).resolve("epoch-" + manifest.epoch());
        try {
            Files.createDirectories(dir);
            Path partial = dir.resolve(MANIFEST + ".partial");
            Files.writeString(partial, JsonLines.encode(manifest) + "\n");
            Files.move(partial, dir.resolve(MANIFEST), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the manifest of epoch " + manifest.epoch() + " in " + dir + ": " + e.getMessage(), e);
        }
    }

    private Manifest readManifest(JobRecord record, long epoch) {
        String job = record.job();
        // Read from root's directory only: it must still be root's alone.
        RootOnlyDirectory.check(images);
        Path file = jobDirectory(record).resolve("epoch-" + epoch).resolve(MANIFEST);
        try {
            Manifest manifest = JsonLines.decode(Files.readString(file).strip(), Manifest.class);
            if (manifest.version() != Manifest.VERSION || manifest.epoch() != epoch || !manifest.job().equals(job)) {
                throw new IllegalStateException(file + " is not epoch " + epoch + " of " + job + " in format " + Manifest.VERSION);
            }
            return manifest;
        } catch (IOException | JsonLines.MalformedMessageException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
