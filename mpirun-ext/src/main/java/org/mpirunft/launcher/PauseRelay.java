package org.mpirunft.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.bridge.control.PauseOrder;
import org.mpirunft.common.Durations;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.launcher.internal.SpareLedger;

/**
 * Carries the scheduler's commands for one job to its ranks, and the ranks' recoveries back to
 * the daemons: the launcher's half of the job pause service.
 *
 * <ul>
 *   <li><b>pause</b> (pause mode): a {@link PauseOrder} (increasing id, the lost ranks, the
 *       placement's nodes as spares in lost-rank order) is delivered as {@code pause.json} to the live ranks' nodes;
 *       the failure stays pending until rank 0 reports the recovery. In restart mode, or when a
 *       pause is impossible (no placement for a lost rank, the ranks' spare list used up, the
 *       MPI runtime gone, the order undeliverable), the job is restarted whole instead
 *       ({@link Escalation#restart}), and the fallback's reason is logged. When mpirun has
 *       already reported the failed nodes lost, the order is deferred
 *       ({@link #deferPausesMpirunSaw}): the ranks are recovering already.</li>
 *   <li><b>recovered</b> (rank 0's line, or any other trigger the lead wires to
 *       {@link #recovered}): each replaced rank's new node is recorded, the daemons get
 *       {@code recoveryCompleted} with the new rank-to-node table for every pause it settles,
 *       and every rank node gets {@code rank-table.json}. A recovery the ranks made on their own
 *       (MPI saw the failure first) settles a later pause for the same ranks: no order is sent.</li>
 *   <li><b>checkpoint</b>: {@code checkpoint.json} to every rank node; the rank library takes a
 *       new file as a request.</li>
 *   <li><b>stop</b>: {@link Escalation#stop}; checkpoints are kept.</li>
 * </ul>
 * Each command key is acted on once. Not thread-safe: the job session calls it from its one
 * event thread; daemon calls block that thread, which only orders them.
 */
public final class PauseRelay {
    private static final Logger LOG = Logger.getLogger(PauseRelay.class.getName());

    /** What the relay cannot do itself. */
    public interface Escalation {
        /** Whether mpirun still runs, so the ranks can still be paused. */
        boolean runtimeAlive();

        /** Stop the job and launch it again whole. */
        void restart(RestartRequest request);

        /** Stop the job for good, keeping its checkpoints. */
        void stop(String reason);
    }

    /** A pause decided and not yet settled by a recovery; {@code sinceNanos}: its order's delivery, or the decision if deferred. */
    private record PendingPause(String failureId, Set<Integer> lostRanks, Map<Integer, String> placement, long sinceNanos) {
    }

    private final String job;
    private final DaemonClient daemon;
    private final EventLog events;
    private final RankTable table;
    private final RecoveryMode mode;
    private final Escalation escalation;
    private final LongSupplier nanoClock;
    private final Set<String> keysSeen = new LinkedHashSet<>();
    private final List<PendingPause> pending = new ArrayList<>();
    /** Recoveries the ranks made before any pause asked for them: ranks replaced, not yet reported to the daemons. */
    private final List<Set<Integer>> unattributed = new ArrayList<>();
    /** Nodes mpirun reported lost (its node daemon or a rank on it): the ranks see those failures through MPI. */
    private final Set<String> lostPerMpirun = new LinkedHashSet<>();
    private ScheduledExecutorService deferralTimer;
    private Duration deferral;
    private SpareLedger spares;
    private JobEvidence evidence;
    private long nextOrderId;
    private int recoveries;

    /**
     * @param spareSlots   the ranks' {@code MPIRUN_FT_SPARES}, one entry per slot
     * @param firstOrderId the first pause order's id; later ones count up. Seed it with the
     *                     wall clock, so ids keep increasing across launcher restarts
     */
    public PauseRelay(String job, DaemonClient daemon, EventLog events, RankTable table, List<String> spareSlots,
                      RecoveryMode mode, JobEvidence evidence, Escalation escalation, LongSupplier nanoClock, long firstOrderId) {
        this.job = job;
        this.daemon = daemon;
        this.events = events;
        this.table = table;
        this.spares = new SpareLedger(spareSlots);
        this.mode = mode;
        this.evidence = evidence;
        this.escalation = escalation;
        this.nanoClock = nanoClock;
        this.nextOrderId = firstOrderId;
    }

    /**
     * Defers the pause order of a failure that mpirun has already reported (every failed node
     * in {@link #mpirunReportedLost}): ULFM tells the ranks, and they recover on their own. An
     * order sent meanwhile would arrive during or after that recovery and roll the job back a
     * second time, with nobody lost. The order is still sent if no recovery settles the failure
     * within {@code bound}. {@code timer} must run its tasks on the thread that calls this relay.
     */
    public PauseRelay deferPausesMpirunSaw(ScheduledExecutorService timer, Duration bound) {
        this.deferralTimer = timer;
        this.deferral = bound;
        return this;
    }

    /** mpirun reported {@code node} lost: its node daemon, or a rank on it. */
    public void mpirunReportedLost(String node) {
        lostPerMpirun.add(node);
    }

    /** Dispatches a scheduler command by kind; a key already seen is ignored. */
    public void onCommand(ControlReply.JobCommand command) {
        if (command.key() != null && !command.key().isEmpty() && !keysSeen.add(command.key())) {
            LOG.fine(() -> "job " + job + ": command " + command.key() + " already handled");
            return;
        }
        try {
            switch (command.kind() == null ? "" : command.kind()) {
                case "pause" -> pause(command);
                case "checkpoint" -> checkpoint(command.epoch());
                case "stop" -> stop(command.reason());
                default -> LOG.warning(() -> "job " + job + ": ignoring a command of unknown kind '" + command.kind() + "'");
            }
        } catch (IllegalArgumentException e) {
            LOG.warning(() -> "job " + job + ": ignoring command " + command.key() + ": " + e.getMessage());
        }
    }

    private void pause(ControlReply.JobCommand command) {
        String failureId = command.failureId() == null ? "" : command.failureId();
        Map<Integer, String> placement = new TreeMap<>(command.placement() == null ? Map.of() : command.placement());
        if (!placement.isEmpty() && placement.entrySet().stream()
                .allMatch(e -> e.getKey() < table.size() && e.getValue() != null && e.getValue().equals(table.nodeOf(e.getKey())))) {
            // A late command for a failure already repaired (a restart, or a recovery, that MPI's
            // own report started): the ranks already run where the scheduler placed them.
            events.append(new LauncherEvent.Decision(failureId, mode.restartsWholeJob() ? "restart" : "pause", placement,
                    "already done: the ranks run where the scheduler placed them"));
            completed(failureId);
            return;
        }
        Set<Integer> lost = placement.keySet();
        Set<String> failedNodes = new LinkedHashSet<>();
        for (int rank : lost) {
            failedNodes.add(table.nodeOf(rank));
        }
        events.append(new LauncherEvent.Failure(failureId, List.copyOf(lost), List.copyOf(failedNodes), "scheduler"));
        Map<String, String> nodePlacement = new LinkedHashMap<>();
        placement.forEach((rank, node) -> {
            if (node != null && !node.isBlank()) {
                nodePlacement.putIfAbsent(table.nodeOf(rank), node);
            }
        });
        if (mode.restartsWholeJob()) {
            events.append(new LauncherEvent.Decision(failureId, "restart", placement, "--recovery restart"));
            escalation.restart(new RestartRequest(failureId, failedNodes, nodePlacement, "failure " + failureId, false, nanoClock.getAsLong()));
            return;
        }
        for (int i = 0; i < unattributed.size(); i++) {
            if (!lost.isEmpty() && unattributed.get(i).containsAll(lost)) {
                unattributed.remove(i);
                events.append(new LauncherEvent.Decision(failureId, "pause", placement, "the ranks had already recovered"));
                completed(failureId);
                return;
            }
        }
        String impossible = whyPauseIsImpossible(placement, failedNodes);
        if (impossible != null) {
            fallBack(failureId, failedNodes, nodePlacement, placement, impossible);
            return;
        }
        if (deferralTimer != null && !failedNodes.isEmpty() && lostPerMpirun.containsAll(failedNodes)) {
            events.append(new LauncherEvent.Decision(failureId, "pause", placement, "mpirun already reported the loss of "
                    + failedNodes + ": the ranks recover on their own; the order follows in " + Durations.format(deferral)
                    + " if they have not"));
            pending.add(new PendingPause(failureId, Set.copyOf(lost), placement, nanoClock.getAsLong()));
            evidence.failureSeen("failure " + failureId + " (ranks " + lost + " on " + failedNodes + ")");
            deferralTimer.schedule(() -> deliverIfStillPending(failureId, failedNodes, nodePlacement),
                    deferral.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        events.append(new LauncherEvent.Decision(failureId, "pause", placement, ""));
        if (deliver(failureId, placement, failedNodes, nodePlacement)) {
            pending.add(new PendingPause(failureId, Set.copyOf(lost), placement, nanoClock.getAsLong()));
            evidence.failureSeen("failure " + failureId + " (ranks " + lost + " on " + failedNodes + ")");
        }
    }

    /** Sends the pause order to the live ranks' nodes; false (and a fallback) if it cannot. */
    private boolean deliver(String failureId, Map<Integer, String> placement, Set<String> failedNodes, Map<String, String> nodePlacement) {
        List<String> liveNodes = table.distinctNodes().stream().filter(n -> !failedNodes.contains(n)).toList();
        Map<Integer, String> lostOn = new TreeMap<>();
        placement.keySet().forEach(rank -> lostOn.put(rank, table.nodeOf(rank)));
        PauseOrder order = new PauseOrder(PauseOrder.VERSION, nextOrderId++, "failure " + failureId,
                List.copyOf(placement.values()), lostOn);
        long start = nanoClock.getAsLong();
        try {
            daemon.deliverRankControl(job, liveNodes, RankControlFiles.PAUSE, RankControlFiles.toJson(order));
        } catch (DaemonException e) {
            fallBack(failureId, failedNodes, nodePlacement, placement, "the pause order could not be delivered: " + e.getMessage());
            return false;
        }
        events.append(new LauncherEvent.Pause(failureId, order.id(), liveNodes, order.spares(), millis(nanoClock.getAsLong() - start)));
        return true;
    }

    private void deliverIfStillPending(String failureId, Set<String> failedNodes, Map<String, String> nodePlacement) {
        PendingPause pause = pending.stream().filter(p -> p.failureId().equals(failureId)).findFirst().orElse(null);
        if (pause == null) {
            return;
        }
        LOG.warning(() -> "job " + job + ": the ranks did not recover from failure " + failureId + " within "
                + Durations.format(deferral) + "; sending the pause order");
        String impossible = whyPauseIsImpossible(pause.placement(), failedNodes);
        if (impossible != null) {
            pending.remove(pause);
            fallBack(failureId, failedNodes, nodePlacement, pause.placement(), impossible);
            return;
        }
        if (!deliver(failureId, pause.placement(), failedNodes, nodePlacement)) {
            pending.remove(pause);
        }
    }

    private String whyPauseIsImpossible(Map<Integer, String> placement, Set<String> failedNodes) {
        if (!escalation.runtimeAlive()) {
            return "the MPI runtime is gone, so there are no ranks to pause";
        }
        List<Integer> unplaced = placement.entrySet().stream()
                .filter(e -> e.getValue() == null || e.getValue().isBlank()).map(Map.Entry::getKey).toList();
        if (!unplaced.isEmpty()) {
            return "the scheduler found no spare for ranks " + unplaced;
        }
        if (spares.remaining() < placement.size()) {
            return "the ranks have " + spares.remaining() + " spare slot(s) left for " + placement.size() + " lost rank(s)";
        }
        if (table.distinctNodes().stream().allMatch(failedNodes::contains)) {
            return "no live rank is left to pause";
        }
        return null;
    }

    private void fallBack(String failureId, Set<String> failedNodes, Map<String, String> nodePlacement,
                          Map<Integer, String> placement, String reason) {
        LOG.warning(() -> "job " + job + ": cannot pause for failure " + failureId + ": " + reason + "; restarting the whole job");
        events.append(new LauncherEvent.Decision(failureId, "restart", placement, reason));
        events.append(new LauncherEvent.Fallback(failureId, reason));
        evidence.failureSeen("failure " + failureId + " (" + reason + ")");
        escalation.restart(new RestartRequest(failureId, failedNodes, nodePlacement, reason, true, nanoClock.getAsLong()));
    }

    /**
     * An in-place recovery completed (rank 0's {@code recovered} line): records where the
     * replaced ranks run now, settles the pauses it answers, tells the daemons and the ranks.
     */
    public void recovered(JobSignal.Recovered recovery) {
        long now = nanoClock.getAsLong();
        List<Integer> replaced = recovery.replacedRanks();
        List<String> hosts = spares.take(replaced.size());
        List<PendingPause> settled = new ArrayList<>();
        for (PendingPause pause : pending) {
            if (replaced.containsAll(pause.lostRanks())) {
                settled.add(pause);
            }
        }
        pending.removeAll(settled);
        String failureId = settled.isEmpty() ? "" : settled.getFirst().failureId();
        for (int i = 0; i < replaced.size(); i++) {
            int rank = replaced.get(i);
            String from = table.nodeOf(rank);
            String to = i < hosts.size() ? hosts.get(i) : placedBy(settled, rank);
            for (PendingPause pause : settled) {
                String chosen = pause.placement().get(rank);
                if (chosen != null && !chosen.equals(to)) {
                    LOG.warning(() -> "job " + job + ": rank " + rank + " was placed on " + to + " by the ranks' spare list, not on "
                            + chosen + " as the scheduler chose");
                }
            }
            if (to == null) {
                LOG.warning(() -> "job " + job + ": cannot tell where rank " + rank + " runs now");
                continue;
            }
            table.move(rank, to);
            events.append(new LauncherEvent.Replacement(failureId, rank, from, to));
        }
        double sincePause = settled.isEmpty() ? -1 : millis(now - settled.getFirst().sinceNanos());
        events.append(new LauncherEvent.Resume(failureId, replaced, recovery.epoch(), recovery.iteration(),
                recovery.totalMillis(), sincePause));
        recoveries++;
        evidence.recovered();
        if (settled.isEmpty()) {
            if (!replaced.isEmpty()) {
                unattributed.add(Set.copyOf(replaced));
            }
            deliverRankTable("");
            return;
        }
        for (PendingPause pause : settled) {
            completed(pause.failureId());
        }
    }

    private static String placedBy(List<PendingPause> settled, int rank) {
        return settled.stream().map(p -> p.placement().get(rank)).filter(n -> n != null && !n.isBlank()).findFirst().orElse(null);
    }

    private void completed(String failureId) {
        try {
            daemon.recoveryCompleted(job, failureId, table.nodes());
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot report the end of recovery " + failureId + " to the daemon: " + e.getMessage());
        }
        deliverRankTable(failureId);
    }

    private void deliverRankTable(String failureId) {
        String content = RankControlFiles.toJson(RankControlFiles.RankTableUpdate.of(job, failureId, table.nodes()));
        try {
            daemon.deliverRankControl(job, table.distinctNodes(), RankControlFiles.RANK_TABLE, content);
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot deliver the new rank table: " + e.getMessage());
        }
    }

    /** Asks every rank node for a checkpoint of {@code epoch} at the next safe point. */
    public void checkpoint(long epoch) {
        List<String> nodes = table.distinctNodes();
        events.append(new LauncherEvent.Checkpoint(epoch, "ordered", 0));
        try {
            daemon.deliverRankControl(job, nodes, RankControlFiles.CHECKPOINT_ORDER,
                    RankControlFiles.toJson(RankControlFiles.CheckpointOrder.of(epoch)));
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot deliver the order to checkpoint epoch " + epoch + ": " + e.getMessage());
        }
    }

    private void stop(String reason) {
        String why = reason == null || reason.isBlank() ? "the scheduler stopped the job" : reason;
        events.append(new LauncherEvent.Decision("", "stop", Map.of(), why));
        escalation.stop(why);
    }

    /** After a whole-job restart: new processes, a new spare list, nothing pending. */
    public void relaunched(List<String> rankNodes, List<String> spareSlots, JobEvidence newEvidence) {
        table.reset(rankNodes);
        spares = new SpareLedger(spareSlots);
        pending.clear();
        unattributed.clear();
        lostPerMpirun.clear();
        evidence = newEvidence;
    }

    /** In-place recoveries so far. */
    public int recoveries() {
        return recoveries;
    }

    /** Failures whose pause was ordered and not yet settled by a recovery. */
    public List<String> pendingFailureIds() {
        return pending.stream().map(PendingPause::failureId).toList();
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }
}
