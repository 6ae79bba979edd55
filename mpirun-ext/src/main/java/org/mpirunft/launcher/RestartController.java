package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.common.Durations;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;

/**
 * Carries out the whole-job restarts the scheduler decides (in restart mode, and when a pause
 * cannot work): once mpirun is gone, makes sure the job's processes are gone everywhere
 * ({@code killJob} through the daemons, which keep running) and builds the plan to launch again
 * from the scheduler's rank-to-node table; for {@code --recovery full-restart} it also restarts
 * the node daemons. The relaunch uses the same job id and checkpoint directory, so the rank
 * library resumes from the last committed epoch (a rank on a new node loads its part from shared
 * storage). The scheduler chose the nodes: a restart never plans a node outside the group. Not
 * thread-safe: the job session's main thread calls it.
 */
public final class RestartController {
    private static final Logger LOG = Logger.getLogger(RestartController.class.getName());

    private final String job;
    private final DaemonClient daemon;
    private final EventLog events;
    private final LongSupplier nanoClock;

    public RestartController(String job, DaemonClient daemon, EventLog events, LongSupplier nanoClock) {
        this.job = job;
        this.daemon = daemon;
        this.events = events;
        this.nanoClock = nanoClock;
    }

    /**
     * The plan to launch the job again on {@code rankNodes} (the scheduler's), after the job's
     * processes left by {@code previous} were killed on every node of the view but
     * {@code lostNodes}, those the scheduler's decision names lost, and on this node. Spares of the previous plan
     * that are alive and not used by a rank now stay spares.
     */
    public HostPlan relaunchPlan(HostPlan previous, List<String> rankNodes, Set<String> lostNodes) {
        Set<String> alive = new LinkedHashSet<>();
        String self = null;
        try {
            ControlReply.StatusReport status = daemon.status();
            status.members().forEach(m -> alive.add(m.name()));
            self = status.node();
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot read the daemons' view: " + e.getMessage());
        }
        Set<String> nodes = new LinkedHashSet<>(previous.rankNodes());
        nodes.addAll(previous.spareNames());
        nodes.addAll(rankNodes);
        // A failed node's daemon is dead or fences itself (killing the job there): asking it only
        // fails, and only once the view drops the node, a few hundred ms after the restart decision.
        nodes.retainAll(alive);
        nodes.removeAll(lostNodes);
        if (self != null) {
            // This node too: a transparent job's restore leaves its mpirun here as the daemon's
            // child, which a restore that failed elsewhere leaves running (scripts/chaos seed 711 job 31).
            nodes.add(self);
        }
        if (!nodes.isEmpty()) {
            try {
                daemon.killJob(job, List.copyOf(nodes));
            } catch (DaemonException e) {
                LOG.warning(() -> "job " + job + ": cannot ask the daemons to kill what is left of the job: " + e.getMessage());
            }
        }
        List<HostSlot> spares = previous.spares().stream().filter(s -> alive.isEmpty() || alive.contains(s.name())).toList();
        return HostPlan.fromRankTable(rankNodes, spares);
    }

    /** Each node of {@code before} whose ranks run elsewhere in {@code after}, with where they went. */
    public static Map<String, String> replacedNodes(List<String> before, List<String> after) {
        Map<String, String> replaced = new LinkedHashMap<>();
        for (int rank = 0; rank < before.size() && rank < after.size(); rank++) {
            if (!before.get(rank).equals(after.get(rank))) {
                replaced.putIfAbsent(before.get(rank), after.get(rank));
            }
        }
        return replaced;
    }

    /**
     * The runtime half of a full restart: the node daemons of every node of {@code plan} but this
     * one's restart, and this returns once each has left the daemons' view and joined again.
     *
     * @throws IllegalStateException if they are not all back within {@code bound}
     */
    public void restartRuntime(HostPlan plan, java.time.Duration bound) {
        long start = nanoClock.getAsLong();
        String self = daemon.status().node();
        List<String> nodes = new ArrayList<>(new LinkedHashSet<>(plan.rankNodes()));
        plan.spareNames().stream().filter(n -> !nodes.contains(n)).forEach(nodes::add);
        nodes.remove(self);
        if (nodes.isEmpty()) {
            return;
        }
        LOG.info(() -> "job " + job + ": restarting the node daemons of " + nodes);
        daemon.restartDaemons(nodes);
        Set<String> left = new LinkedHashSet<>();
        long deadline = start + bound.toNanos();
        while (true) {
            Set<String> present = new LinkedHashSet<>();
            try {
                daemon.status().members().forEach(m -> present.add(m.name()));
            } catch (DaemonException e) {
                LOG.fine(() -> "job " + job + ": status while the daemons restart: " + e.getMessage());
            }
            nodes.stream().filter(n -> !present.contains(n)).forEach(left::add);
            if (left.containsAll(nodes) && present.containsAll(nodes)) {
                break;
            }
            if (nanoClock.getAsLong() > deadline) {
                List<String> missing = nodes.stream().filter(n -> !left.contains(n) || !present.contains(n)).toList();
                throw new IllegalStateException("the node daemons of " + missing + " did not leave and join again within "
                        + Durations.format(bound));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the node daemons restart", e);
            }
        }
        events.append(new LauncherEvent.RuntimeRestart(nodes, Math.round((nanoClock.getAsLong() - start) / 1e4) / 100.0));
    }

}
