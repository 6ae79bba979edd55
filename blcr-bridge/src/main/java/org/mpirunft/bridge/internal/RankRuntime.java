package org.mpirunft.bridge.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.CheckpointStats;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.Iteration;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.RecoveryReport;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.ulfm.OmpiEnvironment;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.Durations;
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
 * <p>It keeps what only the run needs (where a replacement starts, whether the run completed,
 * whether this process said it leaves) and hands the rest to one part each: the world and the
 * pause orders it shares with the channel's thread to the {@link RankView}, under that view's
 * one lock; the process's start to {@link RankLaunch}; a failure to {@link RankRecovery} (with
 * {@link Rollback}, {@link RankShrink} and {@link RankSpares}); a move to {@link RankMigration}.
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
    private final Rollback rollback;
    private final RankShrink shrink;
    private final RankRecovery recovery;
    private final RankMigration migration;
    /** Every rank agreed that all iterations are done. */
    private volatile boolean completed;
    /** Whether this process told its daemon that it ends on purpose ({@link #leaving}). */
    private volatile boolean saidLeaving;
    /** A run started and did not complete: it threw, and the process does not end on purpose. */
    private volatile boolean runEndedAbnormally;
    /** Whether this job can recover in place (ULFM is on); without it the ranks act on no pause order. */
    private final boolean inPlaceRecovery = OmpiEnvironment.ulfmEnabled();
    /**
     * Whether the recovery path was prepared ({@link RankRecovery#preparePath}), or needs no
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

    public RankRuntime(FtConfig config, RankListener programListener) throws MPIException {
        this.config = config;
        RankListener listener = GuardedListener.of(programListener);
        RankLaunch launch = RankLaunch.start(config, listener);
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
        this.view = new RankView(migrations, world, rank, Pmix.self(), replacement ? joinersPeers(world, rank) : Peer.gather(world),
                RankView.OPEN_MPI);
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
                new CheckpointStore(config.localDirectory(), job, config.compression(), listener),
                new CheckpointStore(config.sharedDirectory(), job, config.compression(), listener),
                policy, config.keepInMemory(), config.levels(), job, rank, listener);
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
        RankSpares spares = new RankSpares(config, launch, channel, view);
        this.rollback = new Rollback(view, state, coordinator, job);
        this.shrink = new RankShrink(view, state, coordinator, this::leaving, this::close);
        this.recovery = new RankRecovery(config, job, state, view, coordinator, channel, spares, rollback, shrink, migrations);
        this.migration = new RankMigration(job, state, view, coordinator, channel, migrations, spares, rollback, recovery, this::leaving);
        if (joined != null && joined.migratedIn() != null) {
            migration.tookPlaceOf(joined.migratedIn());
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
        return recovery.reports();
    }

    public CheckpointStats checkpointStats() {
        return coordinator.stats().snapshot();
    }

    /** The rank counts the program can run on; a shrink goes to the largest of them the survivors make up. */
    public void acceptRanks(IntPredicate accepted) {
        shrink.acceptRanks(accepted);
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
                migration.safePoint(iteration, progress);
                rollback.releaseInitialOnceCommitted();
                body.run(view.world(), iteration);
                iteration++;
                progress++;
                if (!recoveryPathPrepared) {
                    recoveryPathPrepared = true;
                    RankRecovery.preparePath(channel != null);
                }
            } catch (MPIException | UlfmException e) {
                if (!RankRecovery.isFailure(e)) {
                    if (e instanceof UlfmException ulfm) {
                        throw ulfm;
                    }
                    throw new BridgeException("rank " + view.rank() + ": MPI error at iteration " + iteration + ": " + e.getMessage(), e);
                }
                long seenAt = System.currentTimeMillis();
                long at = iteration;
                LOG.info(() -> "rank " + view.rank() + ": " + e.getMessage() + " at iteration " + at + "; recovering");
                iteration = recovery.recover(first, seenAt);
                progress = 0;
            }
        }
    }

    private long startingPoint(long first) throws MPIException {
        if (migration.joining()) {
            return migration.joinAfterMigration(first);
        }
        if (replacement) {
            if (joinInterrupted) {
                coordinator.awaitRead();
                LOG.info(() -> "rank " + view.rank()
                        + ": a failure interrupted the join before the epoch agreement; recovering with the others");
                // With no committed epoch the recovery rolls back to the state the program set up.
                rollback.captureInitialIfNeeded(first);
                return recovery.recover(first, System.currentTimeMillis());
            }
            if (joinedLastEpoch < 0) {
                return recovery.recover(first, System.currentTimeMillis());
            }
            long lastEpochUsed = joinedLastEpoch;
            joinedLastEpoch = -1;
            long agreeStart = System.nanoTime();
            long setupNanos = agreeStart - setupStartNanos;
            // The read ends before the agreement, so that the survivors' report has its time.
            long transferNanos = coordinator.awaitRead();
            Rollback.Selection target;
            try {
                target = rollback.select(lastEpochUsed, setupNanos, transferNanos);
            } catch (MPIException | UlfmException e) {
                if (!RankRecovery.isFailure(e)) {
                    throw e;
                }
                // Another rank failed while this one joined: it is in the repaired world now, so it
                // takes part in the survivors' next recovery instead of giving up.
                LOG.info(() -> "rank " + view.rank() + ": a failure interrupted the join (" + e.getMessage()
                        + "); recovering with the others");
                rollback.captureInitialIfNeeded(first);
                return recovery.recover(first, System.currentTimeMillis());
            }
            LOG.info(() -> "rank " + view.rank() + ": replacement joined; rolling back to epoch " + target.epoch() + " in "
                    + (System.nanoTime() - agreeStart) / 1_000_000 + " ms after its setup");
            target.snapshot().ifPresent(snapshot -> rollback.restore(snapshot, target));
            rollback.captureInitialIfNeeded(first);
            return target.snapshot().isPresent() ? target.iteration() : first;
        }
        // A relaunch of a job with committed epochs resumes from them: the full-restart mode.
        if (!coordinator.committedEpochs().isEmpty()) {
            rollback.captureInitialIfNeeded(first);
            Rollback.Selection target = rollback.select(coordinator.lastEpoch(), 0, 0);
            target.snapshot().ifPresent(snapshot -> rollback.restore(snapshot, target));
            return target.snapshot().isPresent() ? target.iteration() : first;
        }
        rollback.captureInitialIfNeeded(first);
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
            if (!RankRecovery.isFailure(e)) {
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
        shrink.releaseParked();
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

    static String shortHostName(String host) {
        int dot = host.indexOf('.');
        return dot > 0 ? host.substring(0, dot) : host;
    }

    Path sharedJobDirectory() {
        return config.sharedDirectory().resolve(job);
    }
}
