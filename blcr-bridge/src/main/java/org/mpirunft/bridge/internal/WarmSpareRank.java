package org.mpirunft.bridge.internal;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.rank.Handshake;
import org.mpirunft.common.rank.RankMessage;

/**
 * A warm spare's side: wait, idle, until the survivors of a failure call this spare into their
 * repaired world (it then becomes the lost rank, as a spawned replacement would, but with its
 * JVM and MPI already up), or until the job ends.
 */
final class WarmSpareRank {
    private static final Logger LOG = Logger.getLogger(WarmSpareRank.class.getName());

    /**
     * How often an idle spare looks whether its rank channel gave up: the longest it waits for an
     * order before it looks. A spare wakes this often and nothing more, so its idle CPU stays
     * near none (WarmSpareIT measures it).
     */
    static final Duration CHANNEL_CHECK = Duration.ofSeconds(2);

    private WarmSpareRank() {
    }

    /**
     * Returns this spare's place in a repaired world. The spare waits on its node daemon's rank
     * channel ({@code calls}: the orders it gets there, which are only the calls that name it,
     * the job's end and a stop), a blocked thread and no MPI progress, so an idle spare takes
     * no CPU. A call is answered on {@code MPI_COMM_WORLD} ({@link SpareRendezvous}); a call
     * the root gives up, or does not confirm in time, and a join that fails (the repair attempt
     * was given up while this spare joined) leave the spare idle again. When the job ends
     * instead, this finalizes MPI and ends the process: the application never ran here.
     *
     * <p>The wait for an order is bounded by {@link #CHANNEL_CHECK}: after each, a channel that
     * gave up on its daemon for good ({@code channelOpen} false: no call can come any more) sends
     * the spare to wait for the job's end in MPI_Finalize ({@link #awaitJobEnd}).
     *
     * @param spares      the spares' own communicator (only to load what a join needs, before the wait)
     * @param bridges     this spare's pairs with every other process of the launch, the bridges of its join
     * @param listener    the program's, told of the spare's release at the job's end
     * @param channelOpen whether the rank channel that fills {@code calls} still has, or expects back, its daemon
     */
    static WorldRepair.Repaired joinWhenCalled(int worldRank, Intracomm spares, SpareBridges bridges, FtConfig config,
                                               RankListener listener, BlockingQueue<RankMessage> calls, BooleanSupplier channelOpen)
            throws MPIException {
        prepareToJoin(spares, config);
        Idle idle = Idle.now();
        // A failure in the join is reported on the local communicator, whose handler the new
        // intercommunicator inherits: by default fatal on COMM_SELF, which aborts the whole job.
        MPI.COMM_SELF.setErrhandler(MPI.ERRORS_RETURN);
        LOG.fine(() -> "warm spare " + worldRank + ": waiting on the rank channel for a call");
        while (true) {
            RankMessage order;
            try {
                order = calls.poll(CHANNEL_CHECK.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("warm spare " + worldRank + ": interrupted while waiting for a call", e);
            }
            if (order == null) {
                if (!channelOpen.getAsBoolean()) {
                    LOG.warning(() -> "warm spare " + worldRank + ": its rank channel gave up on the node daemon, so no call can"
                            + " come; waiting for the job's end");
                    awaitJobEnd();
                }
                continue;
            }
            RankMessage.SpareCall call;
            switch (order) {
                case RankMessage.JobEnding ending -> {
                    // What the wait cost: an idle spare must cost the job no CPU.
                    listener.spareReleased(idle.released(worldRank));
                    finish(worldRank, config.finalizeTimeout());
                    continue;
                }
                case RankMessage.StopOrder stop -> {
                    LOG.fine(() -> "warm spare " + worldRank + ": job stopped by the scheduler: " + stop.reason());
                    System.out.flush();
                    System.err.flush();
                    Runtime.getRuntime().halt(0);
                    continue;
                }
                case RankMessage.SpareCall c when c.calls(worldRank) -> call = c;
                default -> {
                    LOG.fine(() -> "warm spare " + worldRank + ": ignoring " + order.getClass().getSimpleName());
                    continue;
                }
            }
            LOG.info(() -> "warm spare " + worldRank + ": called (" + call.callId() + ") by world rank " + call.rootRank());
            Thread bound = boundJoin(worldRank);
            try {
                if (!SpareRendezvous.answerAndAwaitGo(call, SpareRendezvous.GO_BOUND)) {
                    LOG.info(() -> "warm spare " + worldRank + ": the call " + call.callId() + " was given up; waiting again");
                    continue;
                }
                long start = System.nanoTime();
                SpareRendezvous.Joined in = SpareRendezvous.joinAsSpare(call, worldRank, bridges);
                WorldRepair.Repaired joined = WorldRepair.asReplacement(in.world(), call.group().size(), in.index(), start);
                LOG.info(() -> "warm spare " + worldRank + " is rank " + rankOf(joined) + " now; " + idle.since());
                return joined;
            } catch (MPIException | UlfmException e) {
                // The survivors gave up the attempt (they revoked what it built), or the root or
                // a spare called before this one failed. Idle again.
                LOG.info(() -> "warm spare " + worldRank + ": the repair it was called into failed (" + e.getMessage()
                        + "); waiting again");
            } finally {
                bound.interrupt();
            }
        }
    }

    /**
     * Loads now, while nobody waits for this spare, what joining a repair would otherwise load
     * on its critical path, where the survivors wait for the spare to reach the rollback: the
     * ULFM binding, the rank channel's handshake codec and order codecs, the checkpoint
     * machinery (Jackson's databind for the manifests among it) and the log formatter. Measured
     * in WarmSpareIT (timestamps added for the purpose, two runs): from the spare's place in the
     * world to its first collective there, the channel took 247-273 ms and the checkpoint
     * machinery 90-97 ms before, 23-32 and 41-60 ms after; the survivors' join wait went from
     * 369-409 to 97-115 ms.
     */
    private static void prepareToJoin(Intracomm spares, FtConfig config) {
        try {
            Ulfm.isRevoked(spares);
            Handshake.encode(new RankMessage.Hello(RankMessage.VERSION, "prepare", 0, ProcessHandle.current().pid(), true));
            Handshake.decodeAnswer("{\"type\":\"welcome\",\"version\":" + RankMessage.VERSION + ",\"job\":\"prepare\",\"node\":\"n\","
                    + "\"scheduled\":true,\"orderedEpoch\":0,\"servedOrder\":0,\"everyIterations\":0}");
            JsonLines.prepare(RankMessage.class);
            for (Class<?> type : new Class<?>[] {RankChannel.class, CheckpointCoordinator.class, CheckpointPolicy.class,
                    CheckpointStore.class, EpochManifest.class, Snapshot.class, SpawnLauncher.class, StateTransfer.class,
                    MigrationOrders.class}) {
                Class.forName(type.getName(), true, type.getClassLoader());
            }
            CheckpointStore.prepare();
            for (Handler handler : Logger.getLogger("").getHandlers()) {
                if (handler.getFormatter() != null) {
                    handler.getFormatter().format(new LogRecord(Level.INFO, "prepare"));
                }
            }
        } catch (RuntimeException | ClassNotFoundException | LinkageError e) {
            // The join loads what it needs itself, only later.
            LOG.fine(() -> "warm spare not prepared: " + e);
        }
    }

    /** When the spare became idle, and the process's CPU time then: what its wait costs. */
    private record Idle(long nanos, long cpuNanos) {
        static Idle now() {
            return new Idle(System.nanoTime(), processCpuNanos());
        }

        /** How long the spare has been idle and the CPU the whole process used meanwhile (every thread, the JVM's too). */
        String since() {
            return String.format(java.util.Locale.ROOT, "idle_s=%.1f idle_cpu_s=%.3f", (System.nanoTime() - nanos) / 1e9,
                    (processCpuNanos() - cpuNanos) / 1e9);
        }

        /** The same, as the release of spare {@code worldRank} reports it to the program. */
        RankListener.SpareRelease released(int worldRank) {
            return new RankListener.SpareRelease(worldRank, System.nanoTime() - nanos, processCpuNanos() - cpuNanos);
        }

        private static long processCpuNanos() {
            return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
        }
    }

    private static int rankOf(WorldRepair.Repaired joined) {
        try {
            return joined.world().getRank();
        } catch (MPIException e) {
            return -1;
        }
    }

    /**
     * Ends this spare if it is not in the repaired world within the bound a spawned replacement
     * has: a connect whose survivors gave up before they accepted waits (in Open MPI) far longer.
     */
    private static Thread boundJoin(int worldRank) {
        Duration bound = RankRuntime.REPLACEMENT_JOIN_BOUND;
        return RankRuntime.haltUnlessInterrupted("warm-spare-join-bound", bound, 0, () -> System.err.println(
                "[mpirun-ft] warm spare " + worldRank + " did not join the job within " + Durations.format(bound)
                        + " (its repair was given up); leaving"));
    }

    /**
     * Waits for the job's end in MPI_Finalize, for a spare no call can reach: every process of
     * the job takes part in it, so it returns when the ranks finalize; if the job ends otherwise
     * (a rank fails, no scheduler to recover it), mpirun ends this process. Then leaves.
     */
    static void awaitJobEnd() throws MPIException {
        MPI.Finalize();
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    /** The job ended: finalize with the others (bounded, as every rank's is) and leave. */
    private static void finish(int worldRank, Duration bound) {
        LOG.fine(() -> "warm spare " + worldRank + ": released");
        try {
            RankRuntime.finalizeWithin(bound, () -> { });
        } catch (MPIException e) {
            LOG.fine(() -> "warm spare " + worldRank + ": MPI_Finalize failed: " + e.getMessage());
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }
}
