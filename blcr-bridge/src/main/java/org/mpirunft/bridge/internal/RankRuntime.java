package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.List;
import java.util.Optional;
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
 * failure handling, world repair and rollback. Owned by the rank's main thread; the rank
 * channel's reader thread ({@link RankChannel}) only records orders, sets a flag and revokes the
 * world. With a node daemon, checkpoints come on the scheduler's orders, a failure's
 * replacements go where the scheduler placed them, and the rank reports commits, failures,
 * recoveries and the end on the channel; without one, the rank's own settings and spare list rule.
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
    /** The job's warm spare ranks; this process was one of them if it joined from there. */
    private final WarmSpares warm;
    /** This process's pairs with the warm spares, made at init (SpareBridges); none for a spawned replacement. */
    private final SpareBridges bridges;
    /** Warm spares this rank called in a repair attempt that failed: the next attempt calls others. Main thread only. */
    private final Set<Integer> failedWarmSpares = new HashSet<>();
    /** This rank's number; it changes only when the job shrinks (a survivor's number among the survivors). */
    private volatile int rank;
    private final CheckpointCoordinator coordinator;
    private final SpawnLauncher launcher;
    /** The node daemon's rank channel; null without a daemon. */
    private final RankChannel channel;
    /** Checkpoint orders that arrived before the coordinator existed. */
    private final AtomicLong earlyOrders = new AtomicLong();
    private final List<RecoveryReport> recoveries = new ArrayList<>();
    /** The rank counts the program runs on, for a shrink (when-no-spare: shrink); main thread only. */
    private java.util.function.IntPredicate acceptedRanks = ranks -> true;
    /**
     * The survivors' worlds of shrinks to fewer ranks than survived: the ranks left out wait in a
     * barrier on them for the job's end, which the others join when they close. Main thread only.
     */
    private final List<Intracomm> parked = new ArrayList<>();

    private volatile Intracomm world;
    private volatile CheckpointCoordinator coordinatorRef;
    /** The node's turns to flush, when the scheduler staggers flushes; else null. */
    private volatile FlushTurns flushTurns;
    /** Who every rank of {@link #world} is, index = rank; guarded by pauseLock. */
    private List<Peer> peers = List.of();
    /** Between a recovery's start and its new world's peers; guarded by pauseLock. */
    private boolean recovering;
    /** Orders that arrived during a recovery, judged against the repaired world; guarded by pauseLock. */
    private final List<RankMessage.PauseOrder> ordersDuringRecovery = new ArrayList<>();
    /** Guards the pause state below, shared by the channel's thread and recovery. */
    private final Object pauseLock = new Object();
    /** Pause orders already judged, as {@code failureId#seq}; guarded by pauseLock. */
    private final Set<String> handledPauses = new HashSet<>();
    /** The newest pause order received; guarded by pauseLock. */
    private RankMessage.PauseOrder latestPause;
    /** Completed by the channel's thread with the first pause order that places every lost rank the root waits on. */
    private CompletableFuture<RankMessage.PauseOrder> placementWanted;
    /** Completed when an order newer than the placement in use arrives; renewed with each placement. Under pauseLock. */
    private CompletableFuture<Void> placementSuperseded = new CompletableFuture<>();
    private Set<Integer> placementLost = Set.of();
    /** The order whose placement a failed repair attempt used; the waiting root wants another. Guarded by pauseLock. */
    private String placementRefused;
    /** The order whose placement this recovery used last; main thread only. */
    private String usedPlacement;
    /**
     * Where this recovery started replacements, by rank: a replacement lost before the recovery
     * completed was lost there, and the scheduler's next order still names the node its rank
     * was first lost on. Guarded by pauseLock.
     */
    private final Map<Integer, String> placedInRecovery = new TreeMap<>();
    /** Ranks warm spares took in the current recovery, over all its rounds, for its report; main thread only. */
    private final Set<Integer> warmInRecovery = new java.util.TreeSet<>();
    /** The failure the current recovery answers, for its report; main thread only. */
    private String servedFailureId = "";
    private volatile boolean pauseRequested;
    private int sparesUsed;
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
    /** The scheduler's migration orders, and the ranks' rule for when to carry one out. */
    private final MigrationOrders migrations = new MigrationOrders(System::nanoTime);
    /** For a spare that took a moved rank's place: its state and where to go on, until it enters the loop; else null. */
    private WorldRepair.MigratedIn migratedIn;
    /** A spare that took a moved rank's place starts its loop after the safe point the others moved at. Main thread only. */
    private boolean skipSafePoint;
    /** How long a rank that moved waits for the scheduler to record the move before its process leaves. */
    private static final Duration LEAVE_WAIT = Duration.ofSeconds(10);
    private Snapshot initial;

    /**
     * The agreed rollback target; {@code joinNanos} is the wait for every rank to be ready, and
     * {@code joinCpuNanos} the CPU time this rank's thread used in it.
     */
    private record Selection(long epoch, long iteration, Optional<Snapshot> snapshot, long joinNanos, long joinCpuNanos,
                             long setupNanos, long transferNanos, int fromRanks) {
    }

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
        this.warm = launch.warm();
        this.bridges = launch.bridges();
        WorldRepair.Repaired joined = launch.joined();
        this.world = launch.world();
        this.replacement = joined != null;
        if (joined != null) {
            this.sparesUsed = joined.sparesUsed();
        }
        this.rank = world.getRank();
        state.placeAt(rank, world.getSize());
        if (rank == 0 && !replacement) {
            // Off the start-up path: a few file checks and one small write.
            config.aotProbe().ifPresent(marker -> Thread.ofVirtual().name("aot-probe").start(() -> AotTraining.answer(marker)));
            config.rankLibraryNote().ifPresent(note -> Thread.ofVirtual().name("rank-library-note").start(() -> RankLibraryNote.write(note)));
        }
        this.peers = replacement ? joinersPeers() : Peer.gather(world);
        // Loads the ULFM binding now rather than in the middle of the first recovery, and
        // fails here, plainly, if the MPI library has no ftmpi extension.
        Ulfm.isRevoked(world);
        this.channel = config.rankSocket().map(socket -> connect(socket, config)).orElse(null);
        RankMessage.Welcome welcome = channel == null ? null : channel.welcome();
        CheckpointPolicy policy = welcome != null && welcome.scheduled()
                ? CheckpointPolicy.scheduled(welcome.servedOrder(), welcome.orderedEpoch(), welcome.everyIterations(),
                System::nanoTime)
                : CheckpointPolicy.own(config.checkpointEveryIterations(), config.checkpointInterval(), System::nanoTime);
        this.coordinator = new CheckpointCoordinator(state,
                new CheckpointStore(config.localDirectory(), job, config.compression()),
                new CheckpointStore(config.sharedDirectory(), job, config.compression()),
                policy, config.keepInMemory(), config.levels(), job, rank);
        coordinator.nodesFrom(() -> peers.stream().map(Peer::node).toList());
        coordinator.fullEvery(config.fullEvery());
        coordinator.xorSetSize(config.xorSet());
        coordinatorRef = coordinator;
        coordinator.ordered(earlyOrders.get());
        if (channel != null) {
            coordinator.reportEpochsTo(channel::report);
            if (welcome.flushWriters() > 0) {
                flushTurns = new FlushTurns(job, rank, channel::report, channel::isOpen, FLUSH_TURN_BOUND);
                coordinator.flushThrough(flushTurns);
            }
        }
        this.launcher = new SpawnLauncher(config, job, warm);
        if (joined != null && joined.migratedIn() != null) {
            // This process took a moved rank's place: it goes on from that rank's memory, not from a checkpoint.
            migratedIn = joined.migratedIn();
            try {
                coordinator.continueFrom(migratedIn.state().handover());
            } catch (java.io.IOException e) {
                throw new BridgeException("rank " + rank + ": the moved rank's checkpoint manifests are unreadable: " + e.getMessage(), e);
            }
            migrations.continueFrom(migratedIn.seq());
            setupStartNanos = System.nanoTime();
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

    /**
     * Connects to the node daemon's rank channel. A daemon that cannot be reached or refuses
     * leaves the rank on its own settings, with one warning: the job still runs, without the
     * scheduler.
     */
    private RankChannel connect(Path socket, FtConfig config) {
        try {
            return RankChannel.connect(socket, new RankMessage.Hello(RankMessage.VERSION, job, rank, ProcessHandle.current().pid(),
                    replacement), CHANNEL_BOUND, this::onOrder);
        } catch (BridgeException e) {
            LOG.warning(() -> "rank " + rank + ": " + e.getMessage() + "; running on this rank's own settings");
            return null;
        }
    }

    /** An order from the node daemon, on the channel's reader thread. */
    private void onOrder(RankMessage order) {
        switch (order) {
            case RankMessage.CheckpointOrder c -> {
                CheckpointCoordinator target = coordinatorRef;
                if (target == null) {
                    earlyOrders.accumulateAndGet(c.epoch(), Math::max);
                } else {
                    target.ordered(c.epoch());
                }
            }
            case RankMessage.PauseOrder p -> {
                if (inPlaceRecovery) {
                    pause(p);
                } else {
                    // MPI was initialized for one thread (needsThreadMultiple): this one must not call it.
                    LOG.warning(() -> "rank " + rank + ": pause order " + keyOf(p) + " ignored: this job runs without ULFM");
                }
            }
            case RankMessage.MigrationOrder migration -> {
                if (inPlaceRecovery) {
                    migrations.ordered(migration);
                } else {
                    LOG.warning(() -> "rank " + rank + ": migration order " + migration.seq() + " ignored: this job runs without ULFM");
                }
            }
            case RankMessage.FlushGrant grant -> {
                FlushTurns turns = flushTurns;
                if (turns != null) {
                    turns.granted(grant.epoch());
                }
            }
            case RankMessage.StopOrder stop -> {
                // The launcher tells the user, once; the rank leaves quietly and the checkpoints stay.
                LOG.fine(() -> "rank " + rank + ": job stopped by the scheduler: " + stop.reason());
                System.out.flush();
                System.err.flush();
                Runtime.getRuntime().halt(0);
            }
            default -> LOG.fine(() -> "rank " + rank + ": ignoring " + order.getClass().getSimpleName() + " on the rank channel");
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
        return rank;
    }

    public boolean isReplacement() {
        return replacement;
    }

    public Intracomm world() {
        return world;
    }

    public List<RecoveryReport> recoveries() {
        return List.copyOf(recoveries);
    }

    public CheckpointStats checkpointStats() {
        return coordinator.stats();
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
            throw new BridgeException("rank " + rank + ": cannot start: " + e.getMessage(), e);
        }
        long progress = 0;
        while (true) {
            try {
                if (pauseRequested) {
                    throw new UlfmException("pause order", Ulfm.ERR_REVOKED);
                }
                if (iteration >= end) {
                    // Fault-tolerant agreement: if anyone died at the very end, all roll back.
                    Ulfm.agree(world, 1);
                    completed = true;
                    if (rank == 0 && channel != null) {
                        channel.report(new RankMessage.Finished(RankMessage.VERSION, job));
                    }
                    leaving("its run completed");
                    runEndedAbnormally = false;
                    return;
                }
                if (skipSafePoint) {
                    // The others passed this safe point already: they moved this rank here at it.
                    skipSafePoint = false;
                } else {
                    List<RankMessage.MigrationOrder> due = new ArrayList<>(1);
                    long[] agreedAt = {0};
                    // The coordinator settles its epoch before a move: a moving rank's part must not leave with it.
                    coordinator.atSafePoint(world, iteration, progress, migrations.offer(), agreed -> {
                        migrations.decide(agreed).ifPresent(due::add);
                        agreedAt[0] = System.nanoTime();
                        return !due.isEmpty();
                    });
                    if (!due.isEmpty()) {
                        migrate(due.getFirst(), iteration, agreedAt[0]);
                    }
                }
                if (initial != null && coordinator.committedEpoch() > 0) {
                    coordinator.recycle(initial);
                    initial = null;
                }
                body.run(world, iteration);
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
                    throw new BridgeException("rank " + rank + ": MPI error at iteration " + iteration + ": " + e.getMessage(), e);
                }
                long seenAt = System.currentTimeMillis();
                long at = iteration;
                LOG.info(() -> "rank " + rank + ": " + e.getMessage() + " at iteration " + at + "; recovering");
                iteration = recover(first, seenAt);
                progress = 0;
            }
        }
    }

    private long startingPoint(long first) throws MPIException {
        if (migratedIn != null) {
            return joinAfterMigration(first);
        }
        if (replacement) {
            if (joinInterrupted) {
                coordinator.awaitRead();
                LOG.info(() -> "rank " + rank + ": a failure interrupted the join before the epoch agreement; recovering with the others");
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
                LOG.info(() -> "rank " + rank + ": a failure interrupted the join (" + e.getMessage() + "); recovering with the others");
                captureInitialIfNeeded(first);
                return recover(first, System.currentTimeMillis());
            }
            LOG.info(() -> "rank " + rank + ": replacement joined; rolling back to epoch " + target.epoch() + " in "
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
     * A spare that took a moved rank's place, once its program set up: it tells the others (who
     * wait for it, idle) how long its setup and the state's transfer took, restores the moved
     * state, and goes on with the iteration the others go on with, after their safe point.
     */
    private long joinAfterMigration(long first) throws MPIException {
        WorldRepair.MigratedIn moved = migratedIn;
        migratedIn = null;
        long setupNanos = System.nanoTime() - setupStartNanos;
        // The state the program set up, as every other rank captured it at its start: a later
        // rollback with no committed epoch goes back there.
        captureInitialIfNeeded(first);
        moved.state().snapshot().restoreInto(state);
        LongBuffer split = MPI.newLongBuffer(MIGRATION_SPLIT).put(0, setupNanos).put(1, moved.state().nanos())
                .put(2, moved.state().bytes());
        try {
            IdleWait.await(world.iAllReduce(split, MIGRATION_SPLIT, MPI.LONG, MPI.MAX), world);
        } catch (MPIException | UlfmException e) {
            if (!isFailure(e)) {
                throw e;
            }
            LOG.info(() -> "rank " + rank + ": a failure came right after the migration (" + e.getMessage() + "); recovering with the others");
            return recover(first, System.currentTimeMillis());
        }
        LOG.info(() -> String.format(java.util.Locale.ROOT, "rank %d: took the moved rank's place at iteration %d (migration %d): "
                + "state %d bytes in %.1f ms, setup %.1f ms", rank, moved.iteration(), moved.seq(), moved.state().bytes(),
                moved.state().nanos() / 1e6, setupNanos / 1e6));
        skipSafePoint = true;
        return moved.iteration();
    }

    /** Longs of the migration's last agreement: the spares' setup, their state's transfer, its bytes. */
    private static final int MIGRATION_SPLIT = 3;

    /**
     * Carries out migration {@code order} at the safe point before {@code iteration}, on every rank
     * ({@link WorldRepair#migrate}); {@code agreedAt} is when the ranks agreed on it there (the
     * commit of the epoch under way, which the move waits for, counts in its time). A moving rank sends its state to its spare and its process
     * leaves the job; the others go on in the new world once the spares are in it. A spare that
     * cannot be brought in (nobody lost) leaves everything as it was; a rank lost during the move
     * throws a process failure, and the job pauses as for any failure.
     */
    private void migrate(RankMessage.MigrationOrder order, long iteration, long agreedAt) throws MPIException {
        long reachNanos = agreedAt - migrations.arrivedAtNanos(order.seq());
        int[] moving = order.moving().keySet().stream().mapToInt(Integer::intValue).toArray();
        boolean leaving = order.moving().containsKey(rank);
        int size = world.getSize();
        int lowestStaying = 0;
        while (lowestStaying < size && order.moving().containsKey(lowestStaying)) {
            lowestStaying++;
        }
        LOG.info(() -> "rank " + rank + ": migration " + order.seq() + " at iteration " + iteration + ": ranks " + order.moving()
                + " to " + order.placement());
        StateTransfer.Outgoing outgoing = leaving
                ? new StateTransfer.Outgoing(Snapshot.capture(state, coordinator.lastEpoch(), rank, iteration, null, true),
                coordinator.handOver())
                : null;
        WorldRepair.Migrated migrated;
        Thread watchdog = repairWatchdog();
        try {
            migrated = WorldRepair.migrate(world, moving, sparesUsed, coordinator.lastEpoch(),
                    new long[] {order.seq(), iteration, lowestStaying}, migrationPlacement(order), outgoing);
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
        if (leaving) {
            leave(order, iteration, migrated);
        }
        synchronized (pauseLock) {
            world = migrated.world();
        }
        List<Peer> movedPeers = Peer.gather(world);
        synchronized (pauseLock) {
            peers = movedPeers;
        }
        // Idle until the spares' programs set up and reach their loop (their first step is this agreement).
        long rejoinStart = System.nanoTime();
        LongBuffer split = MPI.newLongBuffer(MIGRATION_SPLIT).put(0, 0).put(1, 0).put(2, 0);
        IdleWait.await(world.iAllReduce(split, MIGRATION_SPLIT, MPI.LONG, MPI.MAX), world);
        long done = System.nanoTime();
        if (rank == lowestStaying) {
            RankMessage.MigrationSplit measured = new RankMessage.MigrationSplit(millis(reachNanos), millis(migrated.callNanos()),
                    millis(split.get(1)), millis(done - rejoinStart), millis(done - agreedAt), split.get(2));
            System.out.println(String.format(java.util.Locale.ROOT, "[mpirun-ft] migration seq=%d ranks=%s to=%s iteration=%d "
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
        LOG.info(() -> String.format(java.util.Locale.ROOT, "rank %d: moved to %s at iteration %d (migration %d), %d bytes of state "
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

    /**
     * Tells the node daemon, once, that this process ends on purpose: a channel that ends
     * without it, from a process that is gone, is a rank that died (the daemon reports it).
     */
    private void leaving(String reason) {
        if (channel != null && !saidLeaving) {
            saidLeaving = true;
            channel.report(new RankMessage.Leaving(RankMessage.VERSION, job, rank, reason));
        }
    }

    /** The spares of a migration: the order's placement, a warm spare there if one is idle, else a process spawned there. */
    private WorldRepair.ReplacementLauncher migrationPlacement(RankMessage.MigrationOrder order) {
        return new SpareCalls() {
            @Override
            public Map<Integer, String> hostsFor(int[] lostRanks, int used, int attempt) {
                return order.placement();
            }

            @Override
            public CompletableFuture<Void> superseded() {
                // Withdrawn: the scheduler lost the spare, or the job paused.
                return migrations.endOf(order.seq());
            }

            @Override
            String callId(int attempt) {
                return "migration " + order.seq() + "#" + attempt;
            }
        };
    }

    /**
     * How this rank brings replacements in, for a repair and for a move alike: this JVM's command
     * for a spawn, else an idle warm spare, never one that failed this rank before. The placement
     * is the caller's.
     */
    private abstract class SpareCalls implements WorldRepair.ReplacementLauncher {
        @Override
        public String command() {
            return launcher.command();
        }

        @Override
        public String[] arguments() {
            return launcher.arguments();
        }

        @Override
        public WarmSpares warmSpares() {
            return warm;
        }

        @Override
        public Map<Integer, Integer> warmSparesFor(Map<Integer, String> hosts) {
            // The call needs the rank channel, and the rendezvous MPI_COMM_WORLD of the spares'
            // launch, which a spawned replacement is no process of (its world is its spawn's).
            if (channel == null || warm.isEmpty() || !Pmix.self().nspace().equals(warm.namespace())) {
                return Map.of();
            }
            Map<Integer, Integer> chosen = warm.idleSparesFor(hosts, peers.stream().map(Peer::name).toList(), failedWarmSpares);
            return chosen.values().stream().allMatch(bridges::reaches) ? chosen : Map.of();
        }

        @Override
        public SpareBridges spareBridges() {
            return bridges;
        }

        @Override
        public RankMessage.SpareCall callSpares(List<Integer> group, int attempt) {
            int rootRank;
            try {
                rootRank = MPI.COMM_WORLD.getRank();
            } catch (MPIException e) {
                throw new BridgeException("rank " + rank + ": cannot read its rank in MPI_COMM_WORLD: " + e.getMessage(), e);
            }
            RankMessage.SpareCall call = SpareRendezvous.call(job, callId(attempt), group, warm, rootRank);
            channel.report(call);
            return call;
        }

        /** Names the call in logs: what it serves and the attempt. */
        String callId(int attempt) {
            return (servedFailureId.isEmpty() ? "repair" : servedFailureId) + "#" + attempt;
        }

        @Override
        public void warmSparesFailed(java.util.Collection<Integer> worldRanks) {
            failedWarmSpares.addAll(worldRanks);
        }
    }

    private void captureInitialIfNeeded(long first) {
        if (coordinator.committedEpoch() == 0) {
            initial = Snapshot.capture(state, 0, rank, first);
        }
    }

    /** How long a repeated attempt waits for a placement newer than the one that failed. */
    private static final Duration RETRY_PLACEMENT_WAIT = Duration.ofSeconds(3);

    /** How long a repair may take beyond the wait for its placement. */
    private static final Duration REPAIR_GRACE = Duration.ofSeconds(60);

    /** How many failures one recovery absorbs (each one after its repair starts it again) before it gives up. */
    private static final int RECOVERY_ROUNDS = 4;

    /**
     * Rolls back after a failure. A failure that hits after the world was repaired (a rank lost
     * while the ranks exchange their names or agree on the epoch) starts the recovery again on the
     * repaired world: it extends this recovery rather than ending the job.
     */
    private long recover(long first, long seenAt) {
        synchronized (pauseLock) {
            usedPlacement = null;
            placedInRecovery.clear();
        }
        warmInRecovery.clear();
        for (int round = 1; ; round++) {
            Intracomm before = world;
            try {
                return recoverOnce(first, round == 1 ? seenAt : System.currentTimeMillis());
            } catch (MPIException | UlfmException e) {
                if (!isFailure(e) || world == before || round >= RECOVERY_ROUNDS) {
                    reportFailed("recovery failed: " + e.getMessage(), true);
                    throw new BridgeException("rank " + rank + ": recovery failed: " + e.getMessage(), e);
                }
                int again = round;
                LOG.warning(() -> "rank " + rank + ": a failure during recovery (" + e.getMessage() + "); recovering again, round "
                        + (again + 1));
            }
        }
    }

    /** A process failure or a revoke: what a recovery answers. */
    private static boolean isFailure(Exception e) {
        return switch (e) {
            case MPIException m -> Ulfm.isFailure(m);
            case UlfmException u -> Ulfm.isFailureClass(u.errorCode());
            default -> false;
        };
    }

    /** @param seenAt when this rank saw the failure (epoch milliseconds), for the recovery report */
    private long recoverOnce(long first, long seenAt) throws MPIException {
        long start = System.nanoTime();
        // A migration not carried out yet is over: the scheduler's pause ended it.
        migrations.recovered();
        synchronized (pauseLock) {
            recovering = true;
            pauseRequested = false;
            // The newest order is served by this recovery, whether or not it came before the MPI
            // error: a survivor revoked by another rank must declare the lost ranks too, or its
            // shrink waits on a hung rank.
            if (latestPause != null && handledPauses.add(keyOf(latestPause))) {
                judgeOrder(latestPause);
            }
            servedFailureId = latestPause == null ? "" : latestPause.failureId();
        }
        try {
            WorldRepair.Repaired repaired;
            Thread watchdog = repairWatchdog();
            try {
                repaired = WorldRepair.asSurvivor(world, sparesUsed, coordinator.lastEpoch(), placement(), coordinator::partnerCopyBytes);
            } finally {
                watchdog.interrupt();
            }
            world = repaired.world();
            sparesUsed = repaired.sparesUsed();
            if (repaired.shrunk()) {
                Optional<String> refusal = state.resizeRefusal();
                if (refusal.isPresent()) {
                    String why = "rank " + rank + ": no spare for ranks " + Arrays.toString(repaired.replacedRanks())
                            + ", and the job cannot shrink: " + refusal.get() + "; the job stops and keeps its checkpoints";
                    if (channel != null) {
                        channel.report(new RankMessage.RecoveryFailed(RankMessage.VERSION, job, rank, why, false,
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
            List<Peer> repairedPeers = Peer.gather(world);
            synchronized (pauseLock) {
                peers = repairedPeers;
                recovering = false;
                // An order this repair did not answer (its rank was still in the world when the
                // shrink ended) pauses again, against the repaired world.
                List<RankMessage.PauseOrder> late = List.copyOf(ordersDuringRecovery);
                ordersDuringRecovery.clear();
                for (RankMessage.PauseOrder order : late) {
                    if (!stillLost(order).isEmpty()) {
                        declareLost(order);
                        pauseRequested = true;
                    }
                }
            }
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
                    channel.report(new RankMessage.RecoveryDone(RankMessage.VERSION, job, servedFailureId,
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
    private Thread repairWatchdog() {
        Duration bound = config.placementTimeout().plus(REPAIR_GRACE);
        Thread repairing = Thread.currentThread();
        // Every rank still repairing says where it is halfway: the first past the bound ends the
        // job's attempt, so that line is all that shows where the others were.
        return haltUnlessInterrupted("repair-watchdog", bound, 1,
                () -> System.err.println("[mpirun-ft] rank " + rank + ": the repair is still under way after "
                        + Durations.format(bound.dividedBy(2)) + ", in " + stuckIn(repairing.getStackTrace())),
                () -> {
                    String reason = "the repair did not end within " + Durations.format(bound) + ", in "
                            + stuckIn(repairing.getStackTrace())
                            + " (an Open MPI call of the repair can hang when a node is lost while a replacement starts)";
                    System.err.println("[mpirun-ft] rank " + rank + ": " + reason + "; leaving, so that the job restarts from its checkpoint");
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
            channel.report(new RankMessage.RecoveryFailed(RankMessage.VERSION, job, rank, reason, restartable));
        }
    }

    /**
     * The newest committed epoch every rank can load, agreed fault-tolerantly; epoch 0 if none was
     * committed. A replacement brings the time its program's setup and its state read took
     * ({@code setupNanos}, {@code transferNanos}; 0 from the others), and every rank learns the
     * longest of each, for the recovery's report.
     */
    private Selection selectEpoch(long lastEpochUsed, long setupNanos, long transferNanos) throws MPIException {
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
    private void restore(Snapshot source, Selection target) {
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

    /** The rank counts the program can run on; a shrink goes to the largest of them the survivors make up. */
    public void acceptRanks(java.util.function.IntPredicate accepted) {
        this.acceptedRanks = java.util.Objects.requireNonNull(accepted, "accepted rank counts");
    }

    /**
     * No spare for {@code lost}: this rank goes on among the survivors, renumbered in their old
     * order, and its state is laid out for their count by the rollback that follows. If the
     * program runs on fewer ranks than survived (a power of two, say), the last survivors leave
     * the world and wait for the job's end ({@link #park}).
     */
    private void shrinkTo(int[] lost) throws MPIException {
        int before = rank;
        int survivors = world.getSize();
        int accepted = survivors;
        while (accepted > 0 && !acceptedRanks.test(accepted)) {
            accepted--;
        }
        if (accepted == 0) {
            throw new BridgeException("rank " + before + ": no spare for ranks " + Arrays.toString(lost) + ", and the program accepts no"
                    + " rank count of " + survivors + " or fewer; it cannot shrink");
        }
        if (accepted < survivors) {
            Intracomm all = world;
            boolean stays = all.getRank() < accepted;
            Intracomm kept = all.split(stays ? 0 : MPI.UNDEFINED, all.getRank());
            if (!stays) {
                park(all, accepted);
            }
            kept.setErrhandler(MPI.ERRORS_RETURN);
            parked.add(all);
            world = kept;
        }
        rank = world.getRank();
        int ranks = world.getSize();
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

    private static int lowestSurvivor(int[] replaced) {
        java.util.BitSet lost = new java.util.BitSet();
        for (int r : replaced) {
            lost.set(r);
        }
        return lost.nextClearBit(0);
    }

    /**
     * Where the lost ranks' replacements start. With a daemon, the scheduler's placement: that of
     * the newest pause order that names every lost rank on the node it ran on, or, when none has
     * come yet (ULFM told this rank first), the one the scheduler answers this rank's failure
     * report with. Without a daemon, or when no placement comes within the placement timeout, the
     * configured spare list.
     */
    private WorldRepair.ReplacementLauncher placement() {
        return new SpareCalls() {
            @Override
            public Map<Integer, String> hostsFor(int[] lostRanks, int used, int attempt) {
                if (channel == null || !channel.isOpen()) {
                    synchronized (pauseLock) {
                        placementSuperseded = new CompletableFuture<>();
                    }
                    return launcher.hostsFor(lostRanks, used, attempt);
                }
                Map<Integer, String> lostOn = new TreeMap<>();
                for (int lost : lostRanks) {
                    lostOn.put(lost, peers.get(lost).node());
                }
                // A second call in one recovery follows an attempt that failed on the placement it
                // used (the spare may be what failed): it waits for the scheduler's next one, which
                // avoids lost nodes, or, if none comes, tries the same one again (below).
                String failedPlacement = usedPlacement;
                CompletableFuture<RankMessage.PauseOrder> answer;
                RankMessage.PauseOrder failedOrder = null;
                synchronized (pauseLock) {
                    if (latestPause != null && places(latestPause, lostOn)) {
                        if (!keyOf(latestPause).equals(failedPlacement)) {
                            return placedBy(latestPause);
                        }
                        failedOrder = latestPause;
                    }
                    placementLost = lostOn.keySet();
                    placementRefused = failedPlacement;
                    placementWanted = new CompletableFuture<>();
                    answer = placementWanted;
                }
                channel.report(new RankMessage.FailureSeen(RankMessage.VERSION, job, rank, lostOn));
                try {
                    if (failedOrder != null) {
                        // The scheduler's placement was tried and failed. If a spare of it was
                        // lost, a newer order comes as soon as the daemons see it; if none comes,
                        // the failure was something else (a survivor lost mid-attempt, a slot
                        // still held by the failed attempt's replacement), and the same
                        // placement is tried again rather than the launch-time spare list.
                        try {
                            return placedBy(answer.get(RETRY_PLACEMENT_WAIT.toMillis(), TimeUnit.MILLISECONDS));
                        } catch (TimeoutException sameAgain) {
                            RankMessage.PauseOrder again = failedOrder;
                            LOG.info(() -> "rank " + rank + ": no newer placement within " + Durations.format(RETRY_PLACEMENT_WAIT)
                                    + "; trying " + again.placement() + " again");
                            return placedBy(again);
                        }
                    }
                    return placedBy(answer.get(config.placementTimeout().toMillis(), TimeUnit.MILLISECONDS));
                } catch (TimeoutException e) {
                    if (!launcher.hasSpares()) {
                        throw new BridgeException("rank " + rank + ": no placement for ranks " + lostOn.keySet() + " within "
                                + config.placementTimeout() + " and no " + FtConfig.SPARES + " to fall back on");
                    }
                    LOG.warning(() -> "rank " + rank + ": no placement from the scheduler within " + config.placementTimeout()
                            + "; using " + FtConfig.SPARES);
                    return launcher.hostsFor(lostRanks, used, attempt);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BridgeException("rank " + rank + ": interrupted while waiting for a placement", e);
                } catch (ExecutionException e) {
                    throw new BridgeException("rank " + rank + ": " + e.getCause().getMessage(), e.getCause());
                } finally {
                    synchronized (pauseLock) {
                        placementWanted = null;
                        placementLost = Set.of();
                        placementRefused = null;
                    }
                }
            }

            @Override
            public CompletableFuture<Void> superseded() {
                synchronized (pauseLock) {
                    return placementSuperseded;
                }
            }

            private Map<Integer, String> placedBy(RankMessage.PauseOrder order) {
                servedFailureId = order.failureId();
                synchronized (pauseLock) {
                    usedPlacement = keyOf(order);
                    placementSuperseded = new CompletableFuture<>();
                    placedInRecovery.putAll(order.placement());
                }
                return order.placement();
            }
        };
    }

    /**
     * Whether {@code order} places every rank of {@code lostOn} and names it lost on the node it
     * ran on, or it is a replacement this recovery started that was lost before it resumed (the
     * order then still names the node its rank was first lost on); under pauseLock.
     */
    private boolean places(RankMessage.PauseOrder order, Map<Integer, String> lostOn) {
        return lostOn.entrySet().stream().allMatch(e -> {
            String seenOn = shortHostName(e.getValue());
            boolean named = seenOn.equals(shortHostName(order.lostRanks().getOrDefault(e.getKey(), "")))
                    || (order.lostRanks().containsKey(e.getKey()) && seenOn.equals(placedInRecovery.get(e.getKey())));
            // An order that places nobody shrinks the job (policies.when-no-spare: shrink).
            return named && (order.placement().isEmpty() || order.placement().containsKey(e.getKey()));
        });
    }

    private static String keyOf(RankMessage.PauseOrder order) {
        return order.failureId() + "#" + order.seq();
    }

    /**
     * The peers as a replacement first learns them. A failure in the exchange (another node lost
     * while this rank joined) must not end this process: it is a member of the repaired world, and
     * the survivors, who see the same failure, start their recovery again on that world, so this
     * rank joins that recovery when the program enters its loop (see startingPoint). Until then it
     * knows no peers.
     */
    private List<Peer> joinersPeers() throws MPIException {
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

    static String shortHostName(String host) {
        int dot = host.indexOf('.');
        return dot > 0 ? host.substring(0, dot) : host;
    }

    /** The order's lost ranks that still run on the node they were lost on; under pauseLock. */
    private List<Integer> stillLost(RankMessage.PauseOrder order) {
        List<Integer> lost = new ArrayList<>();
        order.lostRanks().forEach((r, node) -> {
            if (r < peers.size() && peers.get(r).node().equals(shortHostName(node))) {
                lost.add(r);
            }
        });
        return lost;
    }

    /** Tells this process's MPI library that the order's lost ranks terminated; under pauseLock. */
    private void declareLost(RankMessage.PauseOrder order) {
        for (int lost : stillLost(order)) {
            if (lost == rank) {
                continue;
            }
            try {
                Pmix.declareTerminated(peers.get(rank).name(), peers.get(lost).name());
            } catch (RuntimeException e) {
                LOG.warning(() -> "rank " + rank + ": cannot declare rank " + lost + " lost to MPI: " + e.getMessage());
            }
        }
    }

    /**
     * Takes a new order: leaves the job if it names this rank, declares its lost ranks, and tells
     * whether it still needs a rollback. An order about ranks that no longer run where they were
     * lost was served by an earlier recovery; under pauseLock.
     */
    private boolean judgeOrder(RankMessage.PauseOrder order) {
        List<Integer> lost = stillLost(order);
        LOG.info(() -> "rank " + rank + ": pause order " + keyOf(order) + ", lost " + order.lostRanks() + ", placement "
                + order.placement() + (order.lostRanks().isEmpty() || !lost.isEmpty() ? "" : ": already recovered"));
        if (lost.contains(rank)) {
            // The runtime declared this rank's node failed, and the others carry on without it.
            System.err.println("[mpirun-ft] rank " + rank + ": declared lost by pause order " + keyOf(order) + "; leaving the job");
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
        if (!order.lostRanks().isEmpty() && lost.isEmpty()) {
            return false;
        }
        declareLost(order);
        if (recovering) {
            ordersDuringRecovery.add(order);
            return false;
        }
        return true;
    }

    /**
     * On the channel's thread. Every order is kept as the newest (it may carry the placement a
     * recovery waits for). The lost ranks are declared before the revoke, so that the shrink
     * does not wait on a hung rank. The revoke stays under the lock so it cannot hit a world
     * repaired meanwhile.
     */
    private void pause(RankMessage.PauseOrder order) {
        synchronized (pauseLock) {
            latestPause = order;
            if (recovering && usedPlacement != null && !keyOf(order).equals(usedPlacement)) {
                // A newer order during a repair: the failure grew (a spare or a survivor lost),
                // so the attempt under way may wait on a replacement that is gone.
                placementSuperseded.complete(null);
            }
            if (placementWanted != null && places(order, lostOnOf(placementLost)) && !keyOf(order).equals(placementRefused)) {
                placementWanted.complete(order);
            }
            if (!handledPauses.add(keyOf(order)) || !judgeOrder(order)) {
                return;
            }
            // A move under way would wait for its spare in vain: the pause drops it.
            migrations.paused();
            pauseRequested = true;
            try {
                Ulfm.revoke(world);
            } catch (RuntimeException e) {
                LOG.warning(() -> "rank " + rank + ": revoke on pause order failed: " + e.getMessage());
            }
        }
    }

    /** The ranks a waiting recovery lost, with the nodes the order names for them, if it names all: under pauseLock. */
    private Map<Integer, String> lostOnOf(Set<Integer> lost) {
        Map<Integer, String> lostOn = new TreeMap<>();
        for (int r : lost) {
            lostOn.put(r, r < peers.size() ? peers.get(r).node() : "");
        }
        return lostOn;
    }

    /** Bounded MPI_Finalize: MPI_Finalize can hang after a recovery, and the run is already complete. */
    @Override
    public void close() {
        // The survivors a shrink left out wait for this: the job's end.
        for (Intracomm left : parked) {
            try {
                IdleWait.await(left.iBarrier(), left);
            } catch (MPIException | UlfmException e) {
                LOG.fine(() -> "rank " + rank + ": the ranks a shrink left out are gone (" + e.getMessage() + ")");
            }
        }
        if (!runEndedAbnormally) {
            leaving("it closed the rank library");
        }
        if (channel != null) {
            channel.close();
        }
        coordinator.close();
        if (completed && rank == 0) {
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
            finalizeWithin(bound, done ? 0 : 1, () -> System.err.println("[mpirun-ft] rank " + rank + ": MPI_Finalize did not return within "
                    + org.mpirunft.common.Durations.format(bound) + (done ? "; the run had completed, exiting"
                    : "; the run had not completed, exiting with status 1")));
        } catch (MPIException e) {
            LOG.warning(() -> "rank " + rank + ": MPI_Finalize failed: " + e.getMessage());
        }
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    Path sharedJobDirectory() {
        return config.sharedDirectory().resolve(job);
    }
}
