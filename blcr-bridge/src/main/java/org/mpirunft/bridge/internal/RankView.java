package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import mpi.Intracomm;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.common.rank.RankMessage;

/**
 * This rank's view of the job, which the main thread and the rank channel's reader thread share:
 * the world it is in, its number there, who every rank of it is, and the scheduler's pause orders
 * judged against them, with the placement a recovery takes from them. The main thread changes
 * the world (a recovery, a shrink, a move); the channel's thread keeps each pause order, declares
 * its lost ranks to MPI and revokes the world. One lock, {@code pauseLock}, guards the pause
 * state, so that an order is judged against one set of peers and its revoke cannot hit a world
 * repaired meanwhile.
 */
final class RankView {
    private static final Logger LOG = Logger.getLogger(RankView.class.getName());

    /** Guards the pause state below, shared by the channel's thread and recovery. */
    private final Object pauseLock = new Object();
    /** The pause drops a move under way: its spare would be waited for in vain. */
    private final MigrationOrders migrations;
    /**
     * The world this rank is in. A move switches it under pauseLock ({@link #moveTo}); a
     * recovery and a shrink set it without ({@link #world(Intracomm)}): while a rank recovers, a
     * pause order revokes nothing (it is kept and judged against the repaired world).
     */
    private volatile Intracomm world;
    /** This rank's number; it changes only when the job shrinks (a survivor's number among the survivors). */
    private volatile int rank;
    /**
     * Who every rank of {@link #world} is, index = rank; guarded by pauseLock. The main thread,
     * which alone replaces it, reads it without the lock.
     */
    private List<Peer> peers;
    /** Between a recovery's start and its new world's peers; guarded by pauseLock. */
    private boolean recovering;
    /** Orders that arrived during a recovery, judged against the repaired world; guarded by pauseLock. */
    private final List<RankMessage.PauseOrder> ordersDuringRecovery = new ArrayList<>();
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
    /** The order whose placement this recovery used last; written by the main thread only, under pauseLock. */
    private String usedPlacement;
    /**
     * Where this recovery started replacements, by rank: a replacement lost before the recovery
     * completed was lost there, and the scheduler's next order still names the node its rank
     * was first lost on. Guarded by pauseLock.
     */
    private final Map<Integer, String> placedInRecovery = new TreeMap<>();
    /** The failure the current recovery answers, for its report; main thread only. */
    private String servedFailureId = "";
    private volatile boolean pauseRequested;
    /**
     * This process's PMIx name. Whether an order names this process is told by name, never by
     * {@link #rank}: a shrink renumbers the rank before the repaired world's peers are known, and
     * the old peers' rank 2 is not the renumbered rank 2.
     */
    private final Pmix.ProcessName self;
    private final MpiEffects mpi;

    RankView(MigrationOrders migrations, Intracomm world, int rank, Pmix.ProcessName self, List<Peer> peers, MpiEffects mpi) {
        this.migrations = migrations;
        this.world = world;
        this.rank = rank;
        this.self = self;
        this.peers = peers;
        this.mpi = mpi;
    }

    /**
     * What a judged order does to this process and to its MPI library. In a rank that is Open
     * MPI's ({@link #OPEN_MPI}); the judging itself is plain Java and is tested without MPI.
     */
    interface MpiEffects {
        /** Tells this process's MPI library that {@code lost} terminated. */
        void declareTerminated(Pmix.ProcessName self, Pmix.ProcessName lost);

        void revoke(Intracomm world);

        /** This process was declared lost: it leaves the job; in a rank this never returns. */
        void leave(String why);
    }

    static final MpiEffects OPEN_MPI = new MpiEffects() {
        @Override
        public void declareTerminated(Pmix.ProcessName self, Pmix.ProcessName lost) {
            Pmix.declareTerminated(self, lost);
        }

        @Override
        public void revoke(Intracomm world) {
            Ulfm.revoke(world);
        }

        @Override
        public void leave(String why) {
            System.err.println("[mpirun-ft] " + why + "; leaving the job");
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
    };

    Intracomm world() {
        return world;
    }

    /** A recovery's or a shrink's new world; main thread, while it recovers. */
    void world(Intracomm repaired) {
        world = repaired;
    }

    int rank() {
        return rank;
    }

    /** This rank's number in a shrunk world; main thread, while it recovers. */
    void rank(int renumbered) {
        rank = renumbered;
    }

    /** The peers as the main thread knows them: only it replaces them. */
    List<Peer> peers() {
        return peers;
    }

    /** Whether a pause order wants a rollback that has not started yet. */
    boolean pauseRequested() {
        return pauseRequested;
    }

    String servedFailureId() {
        return servedFailureId;
    }

    /** A move's new world: under the lock, so that a pause order's revoke hits the old world or the new one. */
    void moveTo(Intracomm moved) {
        synchronized (pauseLock) {
            world = moved;
        }
    }

    /** Who every rank of the world a move made is. */
    void peers(List<Peer> moved) {
        synchronized (pauseLock) {
            peers = moved;
        }
    }

    /**
     * On the channel's thread. Every order is kept as the newest (it may carry the placement a
     * recovery waits for). The lost ranks are declared before the revoke, so that the shrink
     * does not wait on a hung rank. The revoke stays under the lock so it cannot hit a world
     * repaired meanwhile.
     */
    void pause(RankMessage.PauseOrder order) {
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
                mpi.revoke(world);
            } catch (RuntimeException e) {
                LOG.warning(() -> "rank " + rank + ": revoke on pause order failed: " + e.getMessage());
            }
        }
    }

    /** A recovery starts: no placement of it was used yet, and it started no replacement. */
    void recoveryStarts() {
        synchronized (pauseLock) {
            usedPlacement = null;
            placedInRecovery.clear();
        }
    }

    /** A round of a recovery starts: it serves the newest order, and orders that come meanwhile wait for its end. */
    void roundStarts() {
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
    }

    /** The repaired world's peers: the recovery is over, and the orders that came during it are judged against them. */
    void repaired(List<Peer> repairedPeers) {
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
    }

    /**
     * A recovery's root wants a placement for {@code lostOn}: the newest order's, if it places
     * them and is not {@code failedPlacement}, the order whose placement an attempt just failed
     * on. Otherwise the root waits for the scheduler's {@code answer}: checked and set up in one
     * hold of the lock, so that no order falls between.
     */
    PlacementRequest requestPlacement(Map<Integer, String> lostOn, String failedPlacement) {
        synchronized (pauseLock) {
            RankMessage.PauseOrder failedOrder = null;
            if (latestPause != null && places(latestPause, lostOn)) {
                if (!keyOf(latestPause).equals(failedPlacement)) {
                    return new PlacementRequest(placedBy(latestPause), null, null);
                }
                failedOrder = latestPause;
            }
            placementLost = lostOn.keySet();
            placementRefused = failedPlacement;
            placementWanted = new CompletableFuture<>();
            return new PlacementRequest(null, failedOrder, placementWanted);
        }
    }

    /**
     * What {@link #requestPlacement} gives: a placement to use now, or else the scheduler's
     * answer to wait for, with the order whose placement failed, if it was the newest.
     */
    record PlacementRequest(Map<Integer, String> placed, RankMessage.PauseOrder failedOrder,
                            CompletableFuture<RankMessage.PauseOrder> answer) {
    }

    /** The root's wait for a placement ended, answered or not. */
    void placementWaitOver() {
        synchronized (pauseLock) {
            placementWanted = null;
            placementLost = Set.of();
            placementRefused = null;
        }
    }

    /** The recovery uses {@code order}'s placement; returns it. */
    Map<Integer, String> placedBy(RankMessage.PauseOrder order) {
        servedFailureId = order.failureId();
        synchronized (pauseLock) {
            usedPlacement = keyOf(order);
            placementSuperseded = new CompletableFuture<>();
            placedInRecovery.putAll(order.placement());
        }
        return order.placement();
    }

    /** The recovery uses the spare list's placement: what superseded a placement before does not concern it. */
    void placedBySpareList() {
        synchronized (pauseLock) {
            placementSuperseded = new CompletableFuture<>();
        }
    }

    /** The order whose placement this recovery used last; main thread. */
    String usedPlacement() {
        return usedPlacement;
    }

    /** Completes when an order newer than the placement in use arrives. */
    CompletableFuture<Void> superseded() {
        synchronized (pauseLock) {
            return placementSuperseded;
        }
    }

    /**
     * Whether {@code order} places every rank of {@code lostOn} and names it lost on the node it
     * ran on, or it is a replacement this recovery started that was lost before it resumed (the
     * order then still names the node its rank was first lost on); under pauseLock.
     */
    private boolean places(RankMessage.PauseOrder order, Map<Integer, String> lostOn) {
        return lostOn.entrySet().stream().allMatch(e -> {
            String seenOn = RankRuntime.shortHostName(e.getValue());
            boolean named = seenOn.equals(RankRuntime.shortHostName(order.lostRanks().getOrDefault(e.getKey(), "")))
                    || (order.lostRanks().containsKey(e.getKey()) && seenOn.equals(placedInRecovery.get(e.getKey())));
            // An order that places nobody shrinks the job (policies.when-no-spare: shrink).
            return named && (order.placement().isEmpty() || order.placement().containsKey(e.getKey()));
        });
    }

    static String keyOf(RankMessage.PauseOrder order) {
        return order.failureId() + "#" + order.seq();
    }

    /** The order's lost ranks that still run on the node they were lost on; under pauseLock. */
    private List<Integer> stillLost(RankMessage.PauseOrder order) {
        List<Integer> lost = new ArrayList<>();
        order.lostRanks().forEach((r, node) -> {
            if (r < peers.size() && peers.get(r).node().equals(RankRuntime.shortHostName(node))) {
                lost.add(r);
            }
        });
        return lost;
    }

    /** Tells this process's MPI library that the order's lost ranks terminated; under pauseLock. */
    private void declareLost(RankMessage.PauseOrder order) {
        for (int lost : stillLost(order)) {
            if (peers.get(lost).name().equals(self)) {
                continue;
            }
            try {
                mpi.declareTerminated(self, peers.get(lost).name());
            } catch (RuntimeException e) {
                LOG.warning(() -> "rank " + rank + ": cannot declare rank " + lost + " lost to MPI: " + e.getMessage());
            }
        }
    }

    /**
     * Takes a new order: leaves the job if it names this process, declares its lost ranks, and tells
     * whether it still needs a rollback. An order about ranks that no longer run where they were
     * lost was served by an earlier recovery; under pauseLock.
     */
    private boolean judgeOrder(RankMessage.PauseOrder order) {
        List<Integer> lost = stillLost(order);
        LOG.info(() -> "rank " + rank + ": pause order " + keyOf(order) + ", lost " + order.lostRanks() + ", placement "
                + order.placement() + (order.lostRanks().isEmpty() || !lost.isEmpty() ? "" : ": already recovered"));
        if (lost.stream().anyMatch(r -> peers.get(r).name().equals(self))) {
            // The runtime declared this rank's node failed, and the others carry on without it.
            mpi.leave("rank " + rank + ": declared lost by pause order " + keyOf(order));
            return false;
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

    /** The ranks a waiting recovery lost, with the nodes the order names for them, if it names all: under pauseLock. */
    private Map<Integer, String> lostOnOf(Set<Integer> lost) {
        Map<Integer, String> lostOn = new TreeMap<>();
        for (int r : lost) {
            lostOn.put(r, r < peers.size() ? peers.get(r).node() : "");
        }
        return lostOn;
    }
}
