package org.mpirunft.bridge.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.state.Snapshot;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.bridge.ulfm.Pmix;
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

    private WarmSpareRank() {
    }

    /**
     * Returns this spare's place in a repaired world. The wait is a PMIx lookup, a blocked
     * thread and no MPI progress, so an idle spare takes no CPU. A join that fails (the repair
     * attempt was given up while this spare joined) leaves the spare idle again. When the job
     * ends instead, this finalizes MPI and ends the process: the application never ran here.
     *
     * @param spares the spares' own communicator, for a group of spares that joins together
     */
    static WorldRepair.Repaired joinWhenCalled(WarmSpares warm, int worldRank, Intracomm spares, FtConfig config) throws MPIException {
        prepareToJoin(spares, config);
        Idle idle = Idle.now();
        // A failed connect is reported on the communicator that connects: by default fatal on COMM_SELF.
        MPI.COMM_SELF.setErrhandler(MPI.ERRORS_RETURN);
        String key = warm.keyOf(worldRank);
        LOG.fine(() -> "warm spare " + worldRank + ": waiting on " + key);
        while (true) {
            String value = Pmix.awaitPublished(key);
            if (value.equals(WarmSpares.FINISH)) {
                // The benchmark reads this line: an idle spare must cost the job no CPU.
                LOG.info(() -> "warm spare " + worldRank + ": released; " + idle.since());
                finish(worldRank, config.finalizeTimeout());
            }
            WarmSpares.Call call = WarmSpares.Call.parse(value);
            Thread bound = boundJoin(worldRank);
            try {
                Intracomm joining = MPI.COMM_SELF;
                if (call.group().size() > 1) {
                    int[] members = call.group().stream().mapToInt(r -> r - warm.firstRank()).toArray();
                    Group all = spares.getGroup();
                    Group group = all.incl(members);
                    joining = spares.createGroup(group, 0);
                    joining.setErrhandler(MPI.ERRORS_RETURN);
                    group.free();
                    all.free();
                }
                Intercomm survivors = joining.connect(call.port(), 0);
                survivors.setErrhandler(MPI.ERRORS_RETURN);
                WorldRepair.Repaired joined = WorldRepair.asReplacement(survivors);
                LOG.info(() -> "warm spare " + worldRank + " is rank " + rankOf(joined) + " now; " + idle.since());
                return joined;
            } catch (MPIException | UlfmException e) {
                // The survivors gave up the attempt: they revoked what it built, or ended the
                // rendezvous with an answer Open MPI refuses (whatever error class it gives). Idle again.
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

    /** Tells the idle spares (those not in {@code world}) that the job ended; by rank 0, once. */
    static void release(WarmSpares warm, Collection<Pmix.ProcessName> world) {
        for (int spare : warm.idle(world)) {
            try {
                Pmix.publish(warm.keyOf(spare), WarmSpares.FINISH);
            } catch (RuntimeException e) {
                // A spare that died, or one already told: nobody waits on this key.
                LOG.fine(() -> "warm spare " + spare + " not released: " + e.getMessage());
            }
        }
    }
}
