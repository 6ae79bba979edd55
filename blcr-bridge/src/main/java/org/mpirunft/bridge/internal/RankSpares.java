package org.mpirunft.bridge.internal;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.common.rank.RankMessage;

/**
 * How this rank brings replacements in, for a repair and for a move alike: this JVM's command
 * for a spawn, else an idle warm spare, never one that failed this rank before. A repair's
 * placement is the failure's ({@link FailurePlacement}), a move's its order's. Also counts the
 * replacements the job started so far, which pick from the spare list. Main thread only.
 */
final class RankSpares {
    private final String job;
    private final SpawnLauncher launcher;
    /** The job's warm spare ranks; this process was one of them if it joined from there. */
    private final WarmSpares warm;
    /** This process's pairs with the warm spares, made at init (SpareBridges); none for a spawned replacement. */
    private final SpareBridges bridges;
    /** The node daemon's rank channel; null without a daemon. */
    private final RankChannel channel;
    private final RankView view;
    private final FailurePlacement failurePlacement;
    /** Warm spares this rank called in a repair attempt that failed: the next attempt calls others. */
    private final Set<Integer> failedWarmSpares = new HashSet<>();
    /** The replacements the job started so far. */
    private int used;

    /** A process that joined a repaired world goes on with that world's count of replacements. */
    RankSpares(FtConfig config, RankLaunch launch, RankChannel channel, RankView view) {
        this.job = launch.job();
        this.warm = launch.warm();
        this.bridges = launch.bridges();
        this.channel = channel;
        this.view = view;
        this.launcher = new SpawnLauncher(config, job, warm);
        this.failurePlacement = new FailurePlacement(config, job, launcher, channel, view);
        this.used = launch.joined() == null ? 0 : launch.joined().sparesUsed();
    }

    int used() {
        return used;
    }

    /** After a repair: the count of replacements it gives. */
    void used(int replacements) {
        used = replacements;
    }

    /** The replacements of a failure's lost ranks: where the failure's placement puts them. */
    WorldRepair.ReplacementLauncher forRecovery() {
        return new SpareCalls() {
            @Override
            public Map<Integer, String> hostsFor(int[] lostRanks, int used, int attempt) {
                return failurePlacement.hostsFor(lostRanks, used, attempt);
            }

            @Override
            public CompletableFuture<Void> superseded() {
                return view.superseded();
            }
        };
    }

    /** The spares of a migration: the order's placement, a warm spare there if one is idle, else a process spawned there. */
    WorldRepair.ReplacementLauncher forMigration(RankMessage.MigrationOrder order, MigrationOrders migrations) {
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

    /** The calls both kinds share; the placement is the subclass's. */
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
            Map<Integer, Integer> chosen = warm.idleSparesFor(hosts, view.peers().stream().map(Peer::name).toList(), failedWarmSpares);
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
                throw new BridgeException("rank " + view.rank() + ": cannot read its rank in MPI_COMM_WORLD: " + e.getMessage(), e);
            }
            RankMessage.SpareCall call = SpareRendezvous.call(job, callId(attempt), group, warm, rootRank);
            channel.report(call);
            return call;
        }

        /** Names the call in logs: what it serves and the attempt. */
        String callId(int attempt) {
            String served = view.servedFailureId();
            return (served.isEmpty() ? "repair" : served) + "#" + attempt;
        }

        @Override
        public void warmSparesFailed(Collection<Integer> worldRanks) {
            failedWarmSpares.addAll(worldRanks);
        }
    }
}
