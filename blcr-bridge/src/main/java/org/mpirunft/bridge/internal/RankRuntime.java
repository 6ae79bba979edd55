package org.mpirunft.bridge.internal;

import java.io.IOException;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.Iteration;
import org.mpirunft.bridge.NoUsableCheckpointException;
import org.mpirunft.bridge.RecoveryReport;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.OmpiEnvironment;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.RankMessage;

/**
 * The machinery behind {@link org.mpirunft.bridge.FtRank}: the iteration loop with safe points,
 * where the run starts (a relaunch's or a replacement's rollback), and the rank's end. Owned by
 * the rank's main thread; the rank channel's reader thread ({@link RankChannel}) only hands
 * orders on ({@link OrderIntake}). With a node daemon, checkpoints come on the scheduler's
 * orders, a failure's replacements go where the scheduler placed them, and the rank reports
 * commits, failures, recoveries and the end on the channel; without one, the rank's own settings
 * and spare list rule.
 *
 * <p>The world and the pause orders it shares with the channel's thread are the
 * {@link RankView}'s, under that view's one lock; the process's start is {@link RankLaunch}'s,
 * and the replacements a repair or a move brings in are {@link RankSpares}'.
 */
public final class RankRuntime implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RankRuntime.class.getName());
    /** How long a rank waits for its node daemon's welcome. */
    static final Duration CHANNEL_BOUND = Duration.ofSeconds(10);
    /**
     * How long a copy to shared storage waits for its node's turn before it goes anyway: far
     * above a turn's normal wait (the other nodes' copies, seconds), so it only ends a wait for
     * a grant that is not coming.
     */
    private static final Duration FLUSH_TURN_BOUND = Duration.ofMinutes(5);

    private final FtConfig config;
    private final RankState state = new RankState();
    private final String job;
    private final boolean replacement;
    /** The scheduler's migration orders, and the ranks' rule for when to carry one out. */
    private final MigrationOrders migrations = new MigrationOrders(System::nanoTime);
    private final RankView view;
    private final OrderIntake intake;
    private final CheckpointCoordinator coordinator;
    /** The node daemon's rank channel; null without a daemon. */
    private final RankChannel channel;
    private final RankSpares spares;
    /** Every rank agreed that all iterations are done. */
    private volatile boolean completed;
    /** Whether this process told its daemon that it ends on purpose ({@link #leaving}). */
    private volatile boolean saidLeaving;
    /** A run started and did not complete: it threw, and the process does not end on purpose. */
    private volatile boolean runEndedAbnormally;
    /** Whether this job can recover in place (ULFM is on); without it the ranks act on no pause order. */
    private final boolean inPlaceRecovery = OmpiEnvironment.ulfmEnabled();
    /**
     * Whether the recovery path was prepared ({@link #prepareRecoveryPath}), or needs no
     * preparing: without ULFM (a whole-job restart) no rank recovers in place, and the preparing
     * would only take CPU from the ranks of a restart still in their first iterations. Main
     * thread only.
     */
    private boolean recoveryPathPrepared = !inPlaceRecovery;
    /**
     * A replacement's last epoch used, as the repaired world told it, until it agrees on its
     * rollback target with the others when the program enters its loop; -1 once agreed, or if its
     * join was cut short by another failure.
     */
    private long joinedLastEpoch = -1;
    /** A replacement whose first exchange with the repaired world failed: it starts in a recovery. */
    private boolean joinInterrupted;
    /** When a replacement's {@code FtRank.init} returned: the program's setup starts. */
    private long setupStartNanos;

    /** How long a replacement may take from MPI_Init to its place in the repaired world. */
    static final Duration REPLACEMENT_JOIN_BOUND = Duration.ofSeconds(30);

    /**
     * For a replacement (Open MPI gives it its parents' port): a thread that ends this process if
     * it has not joined the repaired world within {@link #REPLACEMENT_JOIN_BOUND}. If the
     * survivors gave up the attempt that started it, its MPI_Init would wait 10 minutes (fixed
     * in Open MPI) for a rendezvous that will not come, holding its spare. Null for a rank of
     * the job's first launch. Interrupt it once joined.
     */
    public static Thread boundReplacementJoin() {
        if (System.getenv("OMPI_PARENT_PORT") == null) {
            return null;
        }
        return haltUnlessInterrupted("replacement-join-bound", REPLACEMENT_JOIN_BOUND, 1, () -> System.err.println(
                "[mpirun-ft] a replacement did not join the job within " + Durations.format(REPLACEMENT_JOIN_BOUND)
                        + " (its repair was given up); leaving"));
    }

    /**
     * Bounds a wait inside MPI, which no interrupt ends: unless interrupted within {@code bound},
     * the returned thread runs {@code last} (which says why) and ends this process with
     * {@code status}. Interrupt it once the wait is over.
     */
    static Thread haltUnlessInterrupted(String name, Duration bound, int status, Runnable last) {
        return haltUnlessInterrupted(name, bound, status, () -> { }, last);
    }

    /** As {@link #haltUnlessInterrupted(String, Duration, int, Runnable)}, and runs {@code halfway} at half the bound. */
    static Thread haltUnlessInterrupted(String name, Duration bound, int status, Runnable halfway, Runnable last) {
        Duration half = bound.dividedBy(2);
        return Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                Thread.sleep(half.toMillis());
                halfway.run();
                System.err.flush();
                Thread.sleep(bound.minus(half).toMillis());
            } catch (InterruptedException done) {
                return;
            }
            last.run();
            System.err.flush();
            Runtime.getRuntime().halt(status);
        });
    }

    /**
     * MPI_Finalize, bounded: it can hang after a recovery, and the run is complete by then, so
     * past {@code bound} this process runs {@code onTimeout} and exits with status 0.
     */
    static void finalizeWithin(Duration bound, Runnable onTimeout) throws MPIException {
        finalizeWithin(bound, 0, onTimeout);
    }

    /** As above; the process halts with {@code status} when MPI_Finalize does not return in time. */
    static void finalizeWithin(Duration bound, int status, Runnable onTimeout) throws MPIException {
        Thread watchdog = haltUnlessInterrupted("finalize-watchdog", bound, status, onTimeout);
        try {
            MPI.Finalize();
        } finally {
            watchdog.interrupt();
        }
    }

    public RankRuntime(FtConfig config) throws MPIException {
        this.config = config;
        RankLaunch launch = RankLaunch.start(config);
        this.job = launch.job();
        WorldRepair.Repaired joined = launch.joined();
        this.replacement = joined != null;
        Intracomm world = launch.world();
        int rank = world.getRank();
        state.placeAt(rank, world.getSize());
        if (rank == 0 && !replacement) {
            // Off the start-up path: a few file checks and one small write.
            config.aotProbe().ifPresent(marker -> Thread.ofVirtual().name("aot-probe").start(() -> AotTraining.answer(marker)));
            config.rankLibraryNote().ifPresent(note -> Thread.ofVirtual().name("rank-library-note").start(() -> RankLibraryNote.write(note)));
        }
        this.view = new RankView(migrations, world, rank, replacement ? joinersPeers(world, rank) : Peer.gather(world));
        // Loads the ULFM binding now rather than in the middle of the first recovery, and
        // fails here, plainly, if the MPI library has no ftmpi extension.
        Ulfm.isRevoked(world);
        this.intake = new OrderIntake(view, migrations, inPlaceRecovery);
        this.channel = config.rankSocket().map(socket -> connect(socket, rank)).orElse(null);
        RankMessage.Welcome welcome = channel == null ? null : channel.welcome();
        CheckpointPolicy policy = welcome != null && welcome.scheduled()
                ? CheckpointPolicy.scheduled(welcome.servedOrder(), welcome.orderedEpoch(), welcome.everyIterations(),
                System::nanoTime)
                : CheckpointPolicy.own(config.checkpointEveryIterations(), config.checkpointInterval(), System::nanoTime);
        this.coordinator = new CheckpointCoordinator(state,
                new CheckpointStore(config.localDirectory(), job, config.compression()),
                new CheckpointStore(config.sharedDirectory(), job, config.compression()),
                policy, config.keepInMemory(), config.levels(), job, rank);
        coordinator.nodesFrom(() -> view.peers().stream().map(Peer::node).toList());
        coordinator.fullEvery(config.fullEvery());
        coordinator.xorSetSize(config.xorSet());
        intake.checkpointsTo(coordinator);
        if (channel != null) {
            coordinator.reportEpochsTo(channel::report);
            if (welcome.flushWriters() > 0) {
                FlushTurns flushTurns = new FlushTurns(job, rank, channel::report, channel::isOpen, FLUSH_TURN_BOUND);
                intake.flushTurns(flushTurns);
                coordinator.flushThrough(flushTurns);
            }
        }
        SpawnLauncher launcher = new SpawnLauncher(config, job, launch.warm());
        RankSpares spares = new RankSpares(job, launcher, launch.warm(), launch.bridges(), channel, view,
                new FailurePlacement(config, job, launcher, channel, view), replacement ? joined.sparesUsed() : 0);
        this.spares = spares;
        if (joined != null && joined.migratedIn() != null) {
            tookPlaceOf(joined.migratedIn());
        } else if (replacement) {
            // The part is read while the program sets up; the survivors wait for this rank in
            // the epoch agreement, which it joins when the program enters its loop.
            joinedLastEpoch = joined.lastEpoch();
            coordinator.prepareForPartnerCopy(joined.partnerCopyBytes());
            coordinator.startReadingNewest();
            setupStartNanos = System.nanoTime();
        }
    }

    /**
     * Connects to the node daemon's rank channel. A daemon that cannot be reached or refuses
     * leaves the rank on its own settings, with one warning: the job still runs, without the
     * scheduler.
     */
    private RankChannel connect(Path socket, int rank) {
        try {
            return RankChannel.connect(socket, new RankMessage.Hello(RankMessage.VERSION, job, rank, ProcessHandle.current().pid(),
                    replacement), CHANNEL_BOUND, intake::accept);
        } catch (BridgeException e) {
            LOG.warning(() -> "rank " + rank + ": " + e.getMessage() + "; running on this rank's own settings");
            return null;
        }
    }

    /**
     * Whether MPI must allow the rank channel's thread to call it: it revokes the world on a
     * pause order, which only a job with ULFM acts on. Without ULFM (a whole-job restart) a
     * lost rank ends the job, and MPI_THREAD_MULTIPLE would only put locks in every MPI call.
     */
    public static boolean needsThreadMultiple(FtConfig config) {
        return needsThreadMultiple(config, OmpiEnvironment.ulfmEnabled());
    }

    static boolean needsThreadMultiple(FtConfig config, boolean ulfmEnabled) {
        return config.rankSocket().isPresent() && ulfmEnabled;
    }

    public RankState state() {
        return state;
    }

    public String job() {
        return job;
    }

    public int rank() {
        return view.rank();
    }

    public boolean isReplacement() {
        return replacement;
    }

    public Intracomm world() {
        return view.world();
    }

    public List<RecoveryReport> recoveries() {
        return List.copyOf(recoveries);
    }

    public CheckpointStats checkpointStats() {
        return coordinator.stats();
    }

    /** The rank counts the program can run on; a shrink goes to the largest of them the survivors make up. */
    public void acceptRanks(IntPredicate accepted) {
        this.acceptedRanks = Objects.requireNonNull(accepted, "accepted rank counts");
    }

    /**
     * Runs iterations {@code [first, end)} with a safe point before each, surviving failures by
     * rolling back; returns once every rank agreed that all iterations are done.
     */
    public void run(long first, long end, Iteration body) {
        // Until the run completes: a close after it threw is no end on purpose.
        runEndedAbnormally = true;
        long iteration = first;
        try {
            iteration = startingPoint(first);
        } catch (MPIException | UlfmException e) {
            throw new BridgeException("rank " + view.rank() + ": cannot start: " + e.getMessage(), e);
        }
        long progress = 0;
        while (true) {
            try {
                if (view.pauseRequested()) {
                    throw new UlfmException("pause order", Ulfm.ERR_REVOKED);
                }
                if (iteration >= end) {
                    // Fault-tolerant agreement: if anyone died at the very end, all roll back.
                    Ulfm.agree(view.world(), 1);
                    completed = true;
                    if (view.rank() == 0 && channel != null) {
                        channel.report(new RankMessage.Finished(RankMessage.VERSION, job));
                    }
                    leaving("its run completed");
                    runEndedAbnormally = false;
                    return;
                }
                safePoint(iteration, progress);
                releaseInitialOnceCommitted();
                body.run(view.world(), iteration);
                iteration++;
                progress++;
                if (!recoveryPathPrepared) {
                    recoveryPathPrepared = true;
                    prepareRecoveryPath(channel != null);
                }
            } catch (MPIException | UlfmException e) {
                if (!isFailure(e)) {
                    if (e instanceof UlfmException ulfm) {
                        throw ulfm;
                    }
                    throw new BridgeException("rank " + view.rank() + ": MPI error at iteration " + iteration + ": " + e.getMessage(), e);
                }
                long seenAt = System.currentTimeMillis();
                long at = iteration;
                LOG.info(() -> "rank " + view.rank() + ": " + e.getMessage() + " at iteration " + at + "; recovering");
                iteration = recover(first, seenAt);
                progress = 0;
            }
        }
    }

    private long startingPoint(long first) throws MPIException {
        if (joining()) {
            return joinAfterMigration(first);
        }
        if (replacement) {
            if (joinInterrupted) {
                coordinator.awaitRead();
                LOG.info(() -> "rank " + view.rank()
                        + ": a failure interrupted the join before the epoch agreement; recovering with the others");
                // With no committed epoch the recovery rolls back to the state the program set up.
                captureInitialIfNeeded(first);
                return recover(first, System.currentTimeMillis());
            }
            if (joinedLastEpoch < 0) {
                return recover(first, System.currentTimeMillis());
            }
            long lastEpochUsed = joinedLastEpoch;
            joinedLastEpoch = -1;
            long agreeStart = System.nanoTime();
            long setupNanos = agreeStart - setupStartNanos;
            // The read ends before the agreement, so that the survivors' report has its time.
            long transferNanos = coordinator.awaitRead();
            Selection target;
            try {
                target = selectEpoch(lastEpochUsed, setupNanos, transferNanos);
            } catch (MPIException | UlfmException e) {
                if (!isFailure(e)) {
                    throw e;
                }
                // Another rank failed while this one joined: it is in the repaired world now, so it
                // takes part in the survivors' next recovery instead of giving up.
                LOG.info(() -> "rank " + view.rank() + ": a failure interrupted the join (" + e.getMessage()
                        + "); recovering with the others");
                captureInitialIfNeeded(first);
                return recover(first, System.currentTimeMillis());
            }
            LOG.info(() -> "rank " + view.rank() + ": replacement joined; rolling back to epoch " + target.epoch() + " in "
                    + (System.nanoTime() - agreeStart) / 1_000_000 + " ms after its setup");
            target.snapshot().ifPresent(snapshot -> restore(snapshot, target));
            captureInitialIfNeeded(first);
            return target.snapshot().isPresent() ? target.iteration() : first;
        }
        // A relaunch of a job with committed epochs resumes from them: the full-restart mode.
        if (!coordinator.committedEpochs().isEmpty()) {
            captureInitialIfNeeded(first);
            Selection target = selectEpoch(coordinator.lastEpoch(), 0, 0);
            target.snapshot().ifPresent(snapshot -> restore(snapshot, target));
            return target.snapshot().isPresent() ? target.iteration() : first;
        }
        captureInitialIfNeeded(first);
        return first;
    }

    /**
     * The peers as a replacement first learns them. A failure in the exchange (another node lost
     * while this rank joined) must not end this process: it is a member of the repaired world, and
     * the survivors, who see the same failure, start their recovery again on that world, so this
     * rank joins that recovery when the program enters its loop (see startingPoint). Until then it
     * knows no peers.
     */
    private List<Peer> joinersPeers(Intracomm world, int rank) throws MPIException {
        try {
            return Peer.gather(world);
        } catch (MPIException e) {
            if (!isFailure(e)) {
                throw e;
            }
            LOG.info(() -> "rank " + rank + ": a failure interrupted the join (" + e.getMessage() + ")");
            joinInterrupted = true;
            return List.of();
        }
    }

    /**
     * Tells the node daemon, once, that this process ends on purpose: a channel that ends
     * without it, from a process that is gone, is a rank that died (the daemon reports it).
     */
    private void leaving(String reason) {
        if (channel != null && !saidLeaving) {
            saidLeaving = true;
            channel.report(new RankMessage.Leaving(RankMessage.VERSION, job, view.rank(), reason));
        }
    }

    /** Bounded MPI_Finalize: MPI_Finalize can hang after a recovery, and the run is already complete. */
    @Override
    public void close() {
        // The survivors a shrink left out wait for this: the job's end.
        releaseParked();
        if (!runEndedAbnormally) {
            leaving("it closed the rank library");
        }
        if (channel != null) {
            channel.close();
        }
        coordinator.close();
        if (completed && view.rank() == 0) {
            // mpirun-ft's cue that the job is done, whether or not mpirun exits by itself: it
            // may wait on a node daemon that was fenced or cut off.
            System.out.println("[mpirun-ft] finished job=" + job);
        }
        System.out.flush();
        System.err.flush();
        Duration bound = config.finalizeTimeout();
        try {
            // A run that threw did not complete: its process says so with its status, also when
            // MPI_Finalize hangs after it.
            boolean done = completed;
            finalizeWithin(bound, done ? 0 : 1, () -> System.err.println("[mpirun-ft] rank " + view.rank()
                    + ": MPI_Finalize did not return within " + Durations.format(bound)
                    + (done ? "; the run had completed, exiting" : "; the run had not completed, exiting with status 1")));
        } catch (MPIException e) {
            LOG.warning(() -> "rank " + view.rank() + ": MPI_Finalize failed: " + e.getMessage());
        }
    }



    /** The state the program set up, until an epoch commits; else null. */
    private Snapshot initial;

    /**
     * The agreed rollback target; {@code joinNanos} is the wait for every rank to be ready, and
     * {@code joinCpuNanos} the CPU time this rank's thread used in it.
     */
    record Selection(long epoch, long iteration, Optional<Snapshot> snapshot, long joinNanos, long joinCpuNanos,
                     long setupNanos, long transferNanos, int fromRanks) {
    }


    /** Keeps the state the program set up, to roll back to while no epoch has committed. */
    void captureInitialIfNeeded(long first) {
        if (coordinator.committedEpoch() == 0) {
            initial = Snapshot.capture(state, 0, view.rank(), first);
        }
    }

    /** Hands the initial copy back to the coordinator once an epoch committed: no rollback goes there any more. */
    void releaseInitialOnceCommitted() {
        if (initial != null && coordinator.committedEpoch() > 0) {
            coordinator.recycle(initial);
            initial = null;
        }
    }

    /** The state the program set up, or null once an epoch committed. */
    Snapshot initial() {
        return initial;
    }

    /**
     * The newest committed epoch every rank can load, agreed fault-tolerantly; epoch 0 if none was
     * committed. A replacement brings the time its program's setup and its state read took
     * ({@code setupNanos}, {@code transferNanos}; 0 from the others), and every rank learns the
     * longest of each, for the recovery's report.
     */
    Selection selectEpoch(long lastEpochUsed, long setupNanos, long transferNanos) throws MPIException {
        Intracomm world = view.world();
        int rank = view.rank();
        long start = System.nanoTime();
        long startCpu = IdleWait.cpuNanos();
        // The first collective on the repaired world that waits: survivors wait here for
        // replacements to start up, idle, so that the replacements have the cores.
        LongBuffer agreed = MPI.newLongBuffer(3).put(0, lastEpochUsed).put(1, setupNanos).put(2, transferNanos);
        IdleWait.await(world.iAllReduce(agreed, 3, MPI.LONG, MPI.MAX), world);
        long joinNanos = System.nanoTime() - start;
        long joinCpuNanos = IdleWait.cpuNanos() - startCpu;
        long highestEpochUsed = agreed.get(0);
        List<EpochManifest> candidates = coordinator.agreedCandidates(world);
        List<Long> tried = new ArrayList<>();
        int ranks = world.getSize();
        for (EpochManifest manifest : candidates) {
            // An epoch of another rank count (a relaunch with another -np) is redistributed; every
            // rank sees the same counts, so all take the same, collective or not, path.
            Optional<Snapshot> snapshot = manifest.worldSize() == ranks ? coordinator.loadable(world, manifest)
                    : coordinator.redistributed(manifest, ranks);
            tried.add(manifest.epoch());
            if (Ulfm.agree(world, snapshot.isPresent() ? 1 : 0) == 1) {
                if (rank == 0 && tried.size() > 1) {
                    LOG.warning(() -> "rank 0: epochs " + tried.subList(0, tried.size() - 1) + " cannot be loaded by every rank;"
                            + " falling back to epoch " + manifest.epoch());
                }
                coordinator.rolledBackTo(manifest.epoch(), highestEpochUsed);
                return new Selection(manifest.epoch(), manifest.iteration(), snapshot, joinNanos, joinCpuNanos, agreed.get(1),
                        agreed.get(2), manifest.worldSize());
            }
        }
        if (!candidates.isEmpty()) {
            throw new NoUsableCheckpointException(rank, job, tried);
        }
        coordinator.rolledBackTo(0, highestEpochUsed);
        return new Selection(0, -1, Optional.empty(), joinNanos, joinCpuNanos, agreed.get(1), agreed.get(2), ranks);
    }

    /**
     * Puts {@code source} (the selected epoch's snapshot, or the initial copy) in place; an epoch
     * of another rank count then tells the program, which may rebuild per-rank state.
     */
    void restore(Snapshot source, Selection target) {
        int rank = view.rank();
        source.restoreInto(state);
        int ranks = state.ranks();
        if (target.snapshot().isPresent() && target.fromRanks() != ranks) {
            if (rank == 0) {
                LOG.info(() -> "rank 0: epoch " + target.epoch() + " of " + target.fromRanks() + " ranks redistributed to " + ranks
                        + " ranks; resuming at iteration " + target.iteration());
            }
            state.resized(new RankState.Resize(target.epoch(), target.fromRanks(), ranks, rank));
        }
    }



    /** The rank counts the program runs on. */
    private IntPredicate acceptedRanks = ranks -> true;
    /**
     * The survivors' worlds of shrinks to fewer ranks than survived: the ranks left out wait in a
     * barrier on them for the job's end, which the others join when they close.
     */
    private final List<Intracomm> parked = new ArrayList<>();



    /**
     * No spare for {@code lost}: this rank goes on among the survivors, renumbered in their old
     * order, and its state is laid out for their count by the rollback that follows. If the
     * program runs on fewer ranks than survived (a power of two, say), the last survivors leave
     * the world and wait for the job's end ({@link #park}).
     */
    void shrinkTo(int[] lost) throws MPIException {
        int before = view.rank();
        int survivors = view.world().getSize();
        int accepted = survivors;
        while (accepted > 0 && !acceptedRanks.test(accepted)) {
            accepted--;
        }
        if (accepted == 0) {
            throw new BridgeException("rank " + before + ": no spare for ranks " + Arrays.toString(lost) + ", and the program accepts no"
                    + " rank count of " + survivors + " or fewer; it cannot shrink");
        }
        if (accepted < survivors) {
            Intracomm all = view.world();
            boolean stays = all.getRank() < accepted;
            Intracomm kept = all.split(stays ? 0 : MPI.UNDEFINED, all.getRank());
            if (!stays) {
                park(all, accepted);
            }
            kept.setErrhandler(MPI.ERRORS_RETURN);
            parked.add(all);
            view.world(kept);
        }
        view.rank(view.world().getRank());
        int rank = view.rank();
        int ranks = view.world().getSize();
        state.placeAt(rank, ranks);
        coordinator.renumber(rank);
        if (rank == 0) {
            LOG.info(() -> "rank 0: no spare for ranks " + Arrays.toString(lost) + "; the job shrinks to " + ranks + " ranks");
        } else if (before != rank) {
            LOG.fine(() -> "rank " + before + " is rank " + rank + " of " + ranks + " now");
        }
    }

    /**
     * This survivor is not needed: the program runs on {@code ranks} ranks. Its process waits,
     * idle, in a barrier on the survivors' world until the others reach the job's end (then it
     * finalizes with them), or until a process of that world fails; it never returns. Leaving at
     * once would end the process without MPI_Finalize, which the runtime may take for a failure.
     */
    private void park(Intracomm survivors, int ranks) {
        int rank = view.rank();
        LOG.info(() -> "rank " + rank + ": the program runs on " + ranks + " ranks; this process leaves the world and waits for the job's end");
        leaving("a shrink to " + ranks + " ranks left it out");
        try {
            IdleWait.await(survivors.iBarrier(), survivors);
        } catch (MPIException | UlfmException e) {
            LOG.info(() -> "rank " + rank + " (left out): the job ended without it (" + e.getMessage() + ")");
        }
        // As at the job's end: it joins earlier shrinks' barriers, if it stayed then, and finalizes, bounded.
        close();
        Runtime.getRuntime().halt(0);
    }

    /** At the job's end: the survivors a shrink left out wait for this rank in their barrier. */
    void releaseParked() {
        for (Intracomm left : parked) {
            try {
                IdleWait.await(left.iBarrier(), left);
            } catch (MPIException | UlfmException e) {
                LOG.fine(() -> "rank " + view.rank() + ": the ranks a shrink left out are gone (" + e.getMessage() + ")");
            }
        }
    }


    /** How long a repair may take beyond the wait for its placement. */
    private static final Duration REPAIR_GRACE = Duration.ofSeconds(60);
    /** How many failures one recovery absorbs (each one after its repair starts it again) before it gives up. */
    private static final int RECOVERY_ROUNDS = 4;

    private final List<RecoveryReport> recoveries = new ArrayList<>();
    /** Ranks warm spares took in the current recovery, over all its rounds, for its report. */
    private final Set<Integer> warmInRecovery = new TreeSet<>();



    /**
     * Builds in the background what the first recovery would otherwise build first, on its
     * critical path while the other ranks wait in the shrink: the log formatter, the PMIx binding
     * that declares lost ranks, the channel's codecs for the recovery's messages and the recovery
     * line's number format. Measured in node kills on the simulated cluster (4 ranks on 2 cores):
     * the first log line took 19-238 ms per rank, and a rank's recovery waited up to 115 ms for
     * the channel's thread, busy with its first pause order. Called after the rank's first
     * iteration, not at init: a start-up (the job's, a restart's, a replacement's) is a critical
     * path too, and ranks outnumber cores here.
     */
    private static void prepareRecoveryPath(boolean channel) {
        Thread.ofPlatform().daemon().name("rank-prepare-recovery").start(() -> {
            for (Handler handler : Logger.getLogger("").getHandlers()) {
                Formatter formatter = handler.getFormatter();
                if (formatter != null) {
                    formatter.format(new LogRecord(Level.INFO, "prepare"));
                }
            }
            try {
                Pmix.prepare();
            } catch (RuntimeException | LinkageError e) {
                // The recovery that needs it reports the same error, where it matters.
                LOG.fine(() -> "PMIx binding not prepared: " + e.getMessage());
            }
            if (channel) {
                // Only the recovery's messages: all of them took 29-48 ms of a rank's CPU at start, these 18-28 ms.
                JsonLines.prepare(RankMessage.FailureSeen.class, RankMessage.PauseOrder.class, RankMessage.RecoveryDone.class);
            }
            // Formatted, not printed: the line rank 0 prints before it goes back to work.
            new RecoveryReport(new int[0], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, new int[0], 1).toLine();
        });
    }

    /** A process failure or a revoke: what a recovery answers. */
    static boolean isFailure(Exception e) {
        return switch (e) {
            case MPIException m -> Ulfm.isFailure(m);
            case UlfmException u -> Ulfm.isFailureClass(u.errorCode());
            default -> false;
        };
    }

    /**
     * Rolls back after a failure; returns the iteration to go on with. A failure that hits after
     * the world was repaired (a rank lost while the ranks exchange their names or agree on the
     * epoch) starts the recovery again on the repaired world: it extends this recovery rather
     * than ending the job.
     */
    long recover(long first, long seenAt) {
        view.recoveryStarts();
        warmInRecovery.clear();
        for (int round = 1; ; round++) {
            Intracomm before = view.world();
            try {
                return recoverOnce(first, round == 1 ? seenAt : System.currentTimeMillis());
            } catch (MPIException | UlfmException e) {
                if (!isFailure(e) || view.world() == before || round >= RECOVERY_ROUNDS) {
                    reportFailed("recovery failed: " + e.getMessage(), true);
                    throw new BridgeException("rank " + view.rank() + ": recovery failed: " + e.getMessage(), e);
                }
                int again = round;
                LOG.warning(() -> "rank " + view.rank() + ": a failure during recovery (" + e.getMessage() + "); recovering again, round "
                        + (again + 1));
            }
        }
    }

    /** @param seenAt when this rank saw the failure (epoch milliseconds), for the recovery report */
    private long recoverOnce(long first, long seenAt) throws MPIException {
        long start = System.nanoTime();
        // A migration not carried out yet is over: the scheduler's pause ended it.
        migrations.recovered();
        view.roundStarts();
        try {
            WorldRepair.Repaired repaired;
            Thread watchdog = repairWatchdog();
            try {
                repaired = WorldRepair.asSurvivor(view.world(), spares.used(), coordinator.lastEpoch(), spares.forRecovery(),
                        coordinator::partnerCopyBytes);
            } finally {
                watchdog.interrupt();
            }
            view.world(repaired.world());
            spares.used(repaired.sparesUsed());
            if (repaired.shrunk()) {
                Optional<String> refusal = state.resizeRefusal();
                if (refusal.isPresent()) {
                    String why = "rank " + view.rank() + ": no spare for ranks " + Arrays.toString(repaired.replacedRanks())
                            + ", and the job cannot shrink: " + refusal.get() + "; the job stops and keeps its checkpoints";
                    if (channel != null) {
                        channel.report(new RankMessage.RecoveryFailed(RankMessage.VERSION, job, view.rank(), why, false,
                                RankMessage.RecoveryFailed.NO_SPARE));
                    }
                    throw new BridgeException(why);
                }
                shrinkTo(repaired.replacedRanks());
            }
            for (int replaced : repaired.replacedRanks()) {
                if (repaired.warm()) {
                    warmInRecovery.add(replaced);
                } else {
                    warmInRecovery.remove(replaced);
                }
            }
            Intracomm world = view.world();
            int rank = view.rank();
            List<Peer> repairedPeers = Peer.gather(world);
            view.repaired(repairedPeers);
            long loadStart = System.nanoTime();
            Selection target = selectEpoch(coordinator.lastEpoch(), 0, 0);
            if (repaired.shrunk() && target.snapshot().isEmpty()) {
                // The state the program set up is per rank of the old layout, and the lost ranks' is gone.
                throw new BridgeException("rank " + rank + ": the job shrank before its first committed checkpoint,"
                        + " so there is no state to redistribute over " + world.getSize() + " ranks");
            }
            Snapshot source = target.snapshot().orElse(initial);
            if (source == null) {
                throw new BridgeException("rank " + rank + ": no state to roll back to (no checkpoint and no initial copy)");
            }
            restore(source, target);
            long iteration = target.snapshot().isPresent() ? target.iteration() : first;
            long done = System.nanoTime();
            int[] replaced = repaired.shrunk() ? new int[0] : repaired.replacedRanks();
            RecoveryReport report = new RecoveryReport(replaced, target.epoch(), iteration, seenAt,
                    millis(repaired.shrinkNanos()), millis(repaired.spawnNanos()), millis(repaired.mergeNanos()),
                    millis(target.joinNanos()), millis(done - loadStart - target.joinNanos()), millis(done - start),
                    millis(repaired.spawnCpuNanos() + target.joinCpuNanos()), millis(target.setupNanos()),
                    millis(target.transferNanos()), repaired.shrunk() ? repaired.replacedRanks() : new int[0], world.getSize());
            recoveries.add(report);
            // The lowest surviving rank reports: when rank 0 itself was replaced, its replacement
            // never ran this recovery and cannot. After a shrink the survivors are numbered from 0.
            if (repaired.shrunk() ? rank == 0 : rank == lowestSurvivor(repaired.replacedRanks())) {
                System.out.println(report.toLine());
                System.out.flush();
                if (channel != null) {
                    channel.report(new RankMessage.RecoveryDone(RankMessage.VERSION, job, view.servedFailureId(),
                            Arrays.stream(repaired.replacedRanks()).boxed().toList(), repairedPeers.stream().map(Peer::node).toList(),
                            target.epoch(), iteration, seenAt, new RankMessage.RecoverySplit(report.shrinkMillis(),
                            report.spawnMillis(), report.mergeMillis(), report.joinMillis(), report.setupMillis(),
                            report.transferMillis(), report.loadMillis(), report.totalMillis(), List.copyOf(warmInRecovery))));
                }
            }
            return iteration;
        } catch (NoUsableCheckpointException e) {
            reportFailed(e.getMessage(), false);
            throw e;
        }
    }

    /**
     * Bounds one repair: the wait for a placement, then the spawn or the warm spare's call, and
     * the merge. Open MPI's spawn can hang when a rank of the survivors, or the spare, is lost
     * while the replacement starts up (neither returning nor failing). A job must not hang: past
     * the bound this rank says its recovery failed, so that the scheduler restarts the job from
     * its checkpoint, and leaves. It names the call the repair was in, since a hang that the
     * fallback hides can otherwise be told only from the time it cost.
     */
    Thread repairWatchdog() {
        Duration bound = config.placementTimeout().plus(REPAIR_GRACE);
        Thread repairing = Thread.currentThread();
        // Every rank still repairing says where it is halfway: the first past the bound ends the
        // job's attempt, so that line is all that shows where the others were.
        return RankRuntime.haltUnlessInterrupted("repair-watchdog", bound, 1,
                () -> System.err.println("[mpirun-ft] rank " + view.rank() + ": the repair is still under way after "
                        + Durations.format(bound.dividedBy(2)) + ", in " + stuckIn(repairing.getStackTrace())),
                () -> {
                    String reason = "the repair did not end within " + Durations.format(bound) + ", in "
                            + stuckIn(repairing.getStackTrace())
                            + " (an Open MPI call of the repair can hang when a node is lost while a replacement starts)";
                    System.err.println("[mpirun-ft] rank " + view.rank() + ": " + reason
                            + "; leaving, so that the job restarts from its checkpoint");
                    System.err.flush();
                    reportFailed(reason, true);
                });
    }

    /**
     * Where a stuck thread is: its innermost call into Open MPI's bindings (or its innermost
     * frame, if none) and the innermost 3 of this runtime's own methods that led there, e.g.
     * {@code mpi.Intercomm.connect in WorldRepair.callWarmSpare < WorldRepair.asSurvivor}.
     */
    static String stuckIn(StackTraceElement[] stack) {
        if (stack.length == 0) {
            return "an unknown call";
        }
        StackTraceElement call = Arrays.stream(stack).filter(f -> f.getClassName().startsWith("mpi.")).findFirst().orElse(stack[0]);
        List<String> ours = Arrays.stream(stack).filter(f -> f.getClassName().startsWith("org.mpirunft."))
                .map(f -> f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "." + f.getMethodName())
                .distinct().limit(3).toList();
        return call.getClassName() + "." + call.getMethodName() + (ours.isEmpty() ? "" : " in " + String.join(" < ", ours));
    }

    private void reportFailed(String reason, boolean restartable) {
        if (channel != null) {
            channel.report(new RankMessage.RecoveryFailed(RankMessage.VERSION, job, view.rank(), reason, restartable));
        }
    }

    private static int lowestSurvivor(int[] replaced) {
        BitSet lost = new BitSet();
        for (int r : replaced) {
            lost.set(r);
        }
        return lost.nextClearBit(0);
    }

    static double millis(long nanos) {
        return nanos / 1e6;
    }


    /** How long a rank that moved waits for the scheduler to record the move before its process leaves. */
    private static final Duration LEAVE_WAIT = Duration.ofSeconds(10);
    /** Longs of the migration's last agreement: the spares' setup, their state's transfer, its bytes. */
    private static final int MIGRATION_SPLIT = 3;

    /** For a spare that took a moved rank's place: its state and where to go on, until it enters the loop; else null. */
    private WorldRepair.MigratedIn migratedIn;
    /** When such a spare's {@code FtRank.init} returned: the program's setup starts. */
    private long migrationSetupStartNanos;
    /** A spare that took a moved rank's place starts its loop after the safe point the others moved at. */
    private boolean skipSafePoint;


    /** This process took a moved rank's place: it goes on from that rank's memory, not from a checkpoint. */
    void tookPlaceOf(WorldRepair.MigratedIn moved) {
        migratedIn = moved;
        try {
            coordinator.continueFrom(migratedIn.state().handover());
        } catch (IOException e) {
            throw new BridgeException("rank " + view.rank() + ": the moved rank's checkpoint manifests are unreadable: " + e.getMessage(),
                    e);
        }
        migrations.continueFrom(migratedIn.seq());
        migrationSetupStartNanos = System.nanoTime();
    }

    /** Whether this process took a moved rank's place and has not entered the loop yet. */
    boolean joining() {
        return migratedIn != null;
    }

    /**
     * The safe point before {@code iteration}: the coordinator's, whose agreement carries the
     * migration orders, then the move the ranks agreed on there, if any. A spare that took a moved
     * rank's place skips the one the others moved it at.
     */
    void safePoint(long iteration, long progress) throws MPIException {
        if (skipSafePoint) {
            // The others passed this safe point already: they moved this rank here at it.
            skipSafePoint = false;
            return;
        }
        List<RankMessage.MigrationOrder> due = new ArrayList<>(1);
        long[] agreedAt = {0};
        // The coordinator settles its epoch before a move: a moving rank's part must not leave with it.
        coordinator.atSafePoint(view.world(), iteration, progress, migrations.offer(), agreed -> {
            migrations.decide(agreed).ifPresent(due::add);
            agreedAt[0] = System.nanoTime();
            return !due.isEmpty();
        });
        if (!due.isEmpty()) {
            migrate(due.getFirst(), iteration, agreedAt[0]);
        }
    }

    /**
     * A spare that took a moved rank's place, once its program set up: it tells the others (who
     * wait for it, idle) how long its setup and the state's transfer took, restores the moved
     * state, and goes on with the iteration the others go on with, after their safe point.
     */
    long joinAfterMigration(long first) throws MPIException {
        WorldRepair.MigratedIn moved = migratedIn;
        migratedIn = null;
        long setupNanos = System.nanoTime() - migrationSetupStartNanos;
        // The state the program set up, as every other rank captured it at its start: a later
        // rollback with no committed epoch goes back there.
        captureInitialIfNeeded(first);
        moved.state().snapshot().restoreInto(state);
        LongBuffer split = MPI.newLongBuffer(MIGRATION_SPLIT).put(0, setupNanos).put(1, moved.state().nanos())
                .put(2, moved.state().bytes());
        Intracomm world = view.world();
        try {
            IdleWait.await(world.iAllReduce(split, MIGRATION_SPLIT, MPI.LONG, MPI.MAX), world);
        } catch (MPIException | UlfmException e) {
            if (!isFailure(e)) {
                throw e;
            }
            LOG.info(() -> "rank " + view.rank() + ": a failure came right after the migration (" + e.getMessage()
                    + "); recovering with the others");
            return recover(first, System.currentTimeMillis());
        }
        LOG.info(() -> String.format(Locale.ROOT, "rank %d: took the moved rank's place at iteration %d (migration %d): "
                + "state %d bytes in %.1f ms, setup %.1f ms", view.rank(), moved.iteration(), moved.seq(), moved.state().bytes(),
                moved.state().nanos() / 1e6, setupNanos / 1e6));
        skipSafePoint = true;
        return moved.iteration();
    }

    /**
     * Carries out migration {@code order} at the safe point before {@code iteration}, on every rank
     * ({@link WorldRepair#migrate}); {@code agreedAt} is when the ranks agreed on it there (the
     * commit of the epoch under way, which the move waits for, counts in its time). A moving rank
     * sends its state to its spare and its process leaves the job; the others go on in the new
     * world once the spares are in it. A spare that
     * cannot be brought in (nobody lost) leaves everything as it was; a rank lost during the move
     * throws a process failure, and the job pauses as for any failure.
     */
    private void migrate(RankMessage.MigrationOrder order, long iteration, long agreedAt) throws MPIException {
        int rank = view.rank();
        long reachNanos = agreedAt - migrations.arrivedAtNanos(order.seq());
        int[] moving = order.moving().keySet().stream().mapToInt(Integer::intValue).toArray();
        boolean leaves = order.moving().containsKey(rank);
        int size = view.world().getSize();
        int lowestStaying = 0;
        while (lowestStaying < size && order.moving().containsKey(lowestStaying)) {
            lowestStaying++;
        }
        LOG.info(() -> "rank " + rank + ": migration " + order.seq() + " at iteration " + iteration + ": ranks " + order.moving()
                + " to " + order.placement());
        StateTransfer.Outgoing outgoing = leaves
                ? new StateTransfer.Outgoing(Snapshot.capture(state, coordinator.lastEpoch(), rank, iteration, null, true),
                coordinator.handOver())
                : null;
        WorldRepair.Migrated migrated;
        Thread watchdog = repairWatchdog();
        try {
            migrated = WorldRepair.migrate(view.world(), moving, spares.used(), coordinator.lastEpoch(),
                    new long[] {order.seq(), iteration, lowestStaying}, spares.forMigration(order, migrations), outgoing);
        } catch (WorldRepair.MigrationFailedException e) {
            migrations.served(order.seq());
            LOG.warning(() -> "rank " + rank + ": migration " + order.seq() + " given up (" + e.getMessage()
                    + "); going on where the ranks are, nothing rolled back");
            if (rank == lowestStaying && channel != null) {
                channel.report(new RankMessage.MigrationFailed(RankMessage.VERSION, job, order.seq(), e.getMessage()));
            }
            return;
        } finally {
            watchdog.interrupt();
        }
        migrations.served(order.seq());
        if (leaves) {
            leave(order, iteration, migrated);
        }
        view.moveTo(migrated.world());
        Intracomm world = view.world();
        List<Peer> movedPeers = Peer.gather(world);
        view.peers(movedPeers);
        // Idle until the spares' programs set up and reach their loop (their first step is this agreement).
        long rejoinStart = System.nanoTime();
        LongBuffer split = MPI.newLongBuffer(MIGRATION_SPLIT).put(0, 0).put(1, 0).put(2, 0);
        IdleWait.await(world.iAllReduce(split, MIGRATION_SPLIT, MPI.LONG, MPI.MAX), world);
        long done = System.nanoTime();
        if (rank == lowestStaying) {
            RankMessage.MigrationSplit measured = new RankMessage.MigrationSplit(millis(reachNanos), millis(migrated.callNanos()),
                    millis(split.get(1)), millis(done - rejoinStart), millis(done - agreedAt), split.get(2));
            System.out.println(String.format(Locale.ROOT, "[mpirun-ft] migration seq=%d ranks=%s to=%s iteration=%d "
                    + "reach_ms=%.1f call_ms=%.1f transfer_ms=%.1f rejoin_ms=%.1f total_ms=%.1f bytes=%d start=%s", order.seq(),
                    order.moving().keySet(), order.placement().values(), iteration, measured.reachMillis(), measured.callMillis(),
                    measured.transferMillis(), measured.rejoinMillis(), measured.totalMillis(), measured.bytes(),
                    migrated.warm() ? "warm" : "spawn"));
            System.out.flush();
            if (channel != null) {
                channel.report(new RankMessage.MigrationDone(RankMessage.VERSION, job, order.seq(), List.copyOf(order.moving().keySet()),
                        movedPeers.stream().map(Peer::node).toList(), iteration, measured));
            }
        }
    }

    /**
     * This rank moved: its spare runs it now. The process waits (bounded, idle) until the
     * scheduler recorded the move, so that Open MPI's report of this process's exit cannot
     * reach the scheduler first and pass for a failure, then leaves without MPI_Finalize (which
     * would wait for the whole job).
     */
    private void leave(RankMessage.MigrationOrder order, long iteration, WorldRepair.Migrated migrated) {
        int rank = view.rank();
        LOG.info(() -> String.format(Locale.ROOT, "rank %d: moved to %s at iteration %d (migration %d), %d bytes of state "
                + "sent in %.1f ms; this process leaves the job", rank, order.placement().get(rank), iteration, order.seq(),
                migrated.bytesSent(), migrated.transferNanos() / 1e6));
        try {
            migrations.endOf(order.seq()).get(LEAVE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.fine(() -> "rank " + rank + ": the scheduler did not confirm migration " + order.seq() + " within " + LEAVE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        leaving("it moved to " + order.placement().get(rank) + " (migration " + order.seq() + ")");
        if (channel != null) {
            channel.close();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    static String shortHostName(String host) {
        int dot = host.indexOf('.');
        return dot > 0 ? host.substring(0, dot) : host;
    }

    Path sharedJobDirectory() {
        return config.sharedDirectory().resolve(job);
    }
}
