package org.mpirunft.bridge.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.NoUsableCheckpointException;
import org.mpirunft.bridge.RecoveryReport;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.RankMessage;

/**
 * A survivor's recovery from a failure: the world repaired (replacements on spares, or a shrink),
 * the rollback to the agreed epoch, and the report; a failure during it starts it again, a few
 * rounds at most. Each repair is bounded by a watchdog that ends the process rather than let the
 * job hang. Main thread only.
 */
final class RankRecovery {
    private static final Logger LOG = Logger.getLogger(RankRecovery.class.getName());

    private final FtConfig config;
    private final String job;
    private final RankState state;
    private final RankView view;
    private final CheckpointCoordinator coordinator;
    /** The node daemon's rank channel; null without a daemon. */
    private final RankChannel channel;
    private final RankSpares spares;
    private final Rollback rollback;
    private final RankShrink shrink;
    private final MigrationOrders migrations;
    private final List<RecoveryReport> reports = new ArrayList<>();
    /** Ranks warm spares took in the current recovery, over all its rounds, for its report. */
    private final Set<Integer> warmInRecovery = new TreeSet<>();

    RankRecovery(FtConfig config, String job, RankState state, RankView view, CheckpointCoordinator coordinator, RankChannel channel,
                 RankSpares spares, Rollback rollback, RankShrink shrink, MigrationOrders migrations) {
        this.config = config;
        this.job = job;
        this.state = state;
        this.view = view;
        this.coordinator = coordinator;
        this.channel = channel;
        this.spares = spares;
        this.rollback = rollback;
        this.shrink = shrink;
        this.migrations = migrations;
    }

    /** The reports of the recoveries this rank went through. */
    List<RecoveryReport> reports() {
        return List.copyOf(reports);
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
    static void preparePath(boolean channel) {
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

    /** How many failures one recovery absorbs (each one after its repair starts it again) before it gives up. */
    private static final int RECOVERY_ROUNDS = 4;

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
                shrink.shrinkTo(repaired.replacedRanks());
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
            Rollback.Selection target = rollback.select(coordinator.lastEpoch(), 0, 0);
            if (repaired.shrunk() && target.snapshot().isEmpty()) {
                // The state the program set up is per rank of the old layout, and the lost ranks' is gone.
                throw new BridgeException("rank " + rank + ": the job shrank before its first committed checkpoint,"
                        + " so there is no state to redistribute over " + world.getSize() + " ranks");
            }
            Snapshot source = target.snapshot().orElse(rollback.initial());
            if (source == null) {
                throw new BridgeException("rank " + rank + ": no state to roll back to (no checkpoint and no initial copy)");
            }
            rollback.restore(source, target);
            long iteration = target.snapshot().isPresent() ? target.iteration() : first;
            long done = System.nanoTime();
            int[] replaced = repaired.shrunk() ? new int[0] : repaired.replacedRanks();
            RecoveryReport report = new RecoveryReport(replaced, target.epoch(), iteration, seenAt,
                    millis(repaired.shrinkNanos()), millis(repaired.spawnNanos()), millis(repaired.mergeNanos()),
                    millis(target.joinNanos()), millis(done - loadStart - target.joinNanos()), millis(done - start),
                    millis(repaired.spawnCpuNanos() + target.joinCpuNanos()), millis(target.setupNanos()),
                    millis(target.transferNanos()), repaired.shrunk() ? repaired.replacedRanks() : new int[0], world.getSize());
            reports.add(report);
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

    /** How long a repair may take beyond the wait for its placement. */
    private static final Duration REPAIR_GRACE = Duration.ofSeconds(60);

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
}
