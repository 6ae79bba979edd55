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
 * Whole-job restarts: the baseline recovery of {@code --recovery restart}, and the fallback of
 * pause mode when a pause is impossible. Called once mpirun is gone, it makes sure the job's
 * processes are gone everywhere ({@code killJob} through the daemons, which keep running),
 * replaces each failed node by a spare, reports the new rank-to-node table, and returns the
 * plan to launch again. The relaunch uses the same job id and checkpoint directory, so the rank
 * library resumes from the last committed epoch (blcr-bridge's {@code RankRuntime} does so on a
 * fresh start that finds committed epochs; a rank on a new node loads its part from shared
 * storage).
 *
 * <p>A node is failed if a request names it or if it runs ranks and is missing from the
 * daemons' view. Without a request, a job that ended badly is restarted only if a node is
 * missing from the view: a program that fails on healthy nodes would fail again.
 * Replacements are, in order of preference: the scheduler's placement, the plan's spares, the
 * view's spare nodes with a free slot. Not thread-safe: the job session's main thread calls it.
 */
public final class RestartController {
    private static final Logger LOG = Logger.getLogger(RestartController.class.getName());

    private final String job;
    private final DaemonClient daemon;
    private final EventLog events;
    private final int maxRestarts;
    private final LongSupplier nanoClock;
    private int restarts;

    public RestartController(String job, DaemonClient daemon, EventLog events, int maxRestarts, LongSupplier nanoClock) {
        this.job = job;
        this.daemon = daemon;
        this.events = events;
        this.maxRestarts = maxRestarts;
        this.nanoClock = nanoClock;
    }

    public int restarts() {
        return restarts;
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

    /**
     * The plan to launch the job again with, or empty if it is not to be restarted.
     *
     * @param request   the restart decided while mpirun ran, if any
     * @param outcome   how mpirun's run ended
     * @param plan      the plan it was launched with
     * @param rankNodes where its ranks ran at the end (recoveries may have moved some)
     * @throws NoSpareLeftException if a failed node has no replacement
     */
    public Optional<HostPlan> planRelaunch(Optional<RestartRequest> request, JobOutcome outcome, HostPlan plan,
                                           List<String> rankNodes, RecoveryMode mode) {
        Optional<List<ControlReply.MemberStatus>> view = view();
        RestartRequest req = request.orElse(null);
        if (req == null) {
            if (outcome.succeeded() || outcome.status() == JobOutcome.Status.STOPPED || view.isEmpty()) {
                return Optional.empty();
            }
            Set<String> gone = missing(rankNodes, view.get());
            if (gone.isEmpty()) {
                return Optional.empty();
            }
            String reason = "mpirun ended (" + outcome.reason() + ") and " + gone + " left the daemons' view";
            req = new RestartRequest("", gone, Map.of(), reason, mode == RecoveryMode.PAUSE, nanoClock.getAsLong());
            events.append(new LauncherEvent.Decision("", "restart", Map.of(), reason));
            if (req.fallback()) {
                events.append(new LauncherEvent.Fallback("", reason));
            }
        }
        if (restarts >= maxRestarts) {
            String reason = "restart limit reached (" + maxRestarts + ", --max-restarts)";
            LOG.warning(() -> "job " + job + ": not restarting: " + reason);
            events.append(new LauncherEvent.Decision(req.failureId(), "stop", Map.of(), reason));
            return Optional.empty();
        }
        Set<String> failed = new LinkedHashSet<>(req.failedNodes());
        view.ifPresent(members -> failed.addAll(missing(rankNodes, members)));
        killEverywhere(plan, rankNodes, failed, view);
        HostPlan base = rankNodes.equals(plan.rankNodes()) ? plan : HostPlan.fromRankTable(rankNodes, plan.spares());
        Map<String, String> replacements = replacements(failed, req.placement(), base, view);
        HostPlan replaced = base.replace(replacements);
        HostPlan next = new HostPlan(replaced.compute(),
                replaced.spares().stream().filter(s -> !failed.contains(s.name())).toList(), replaced.ranks(), replaced.mapping());
        restarts++;
        double stopMillis = Math.round((nanoClock.getAsLong() - req.atNanos()) / 1e4) / 100.0;
        events.append(new LauncherEvent.Restart(req.failureId(), restarts + 1, replacements, stopMillis, req.reason()));
        report(req.failureId(), next.rankNodes());
        return Optional.of(next);
    }

    private Optional<List<ControlReply.MemberStatus>> view() {
        try {
            return Optional.of(daemon.status().members());
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot read the daemons' view: " + e.getMessage());
            return Optional.empty();
        }
    }

    private static Set<String> missing(List<String> rankNodes, List<ControlReply.MemberStatus> members) {
        Set<String> present = new LinkedHashSet<>();
        members.forEach(m -> present.add(m.name()));
        Set<String> gone = new LinkedHashSet<>();
        for (String node : rankNodes) {
            if (!present.contains(node)) {
                gone.add(node);
            }
        }
        return gone;
    }

    /**
     * Asks the daemons to kill what the job left. Failed nodes and nodes outside the daemons' view
     * are not asked: their daemon is dead or, once it learns it was expelled, kills the job's
     * processes on its own (self-fencing), so asking it only fails.
     */
    private void killEverywhere(HostPlan plan, List<String> rankNodes, Set<String> failed,
                                Optional<List<ControlReply.MemberStatus>> view) {
        Set<String> nodes = new LinkedHashSet<>(rankNodes);
        plan.compute().forEach(h -> nodes.add(h.name()));
        plan.spares().forEach(h -> nodes.add(h.name()));
        nodes.removeAll(failed);
        view.ifPresent(members -> nodes.retainAll(members.stream().map(ControlReply.MemberStatus::name).toList()));
        if (nodes.isEmpty()) {
            return;
        }
        try {
            daemon.killJob(job, List.copyOf(nodes));
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot ask the daemons to kill what is left of the job: " + e.getMessage());
        }
    }

    /** Failed compute node to its replacement. */
    private static Map<String, String> replacements(Set<String> failed, Map<String, String> placement, HostPlan base,
                                                    Optional<List<ControlReply.MemberStatus>> view) {
        Set<String> inUse = new LinkedHashSet<>();
        base.compute().forEach(h -> inUse.add(h.name()));
        Set<String> alive = new LinkedHashSet<>();
        view.ifPresent(members -> members.forEach(m -> alive.add(m.name())));
        List<String> candidates = new ArrayList<>(base.spareNames());
        view.ifPresent(members -> members.stream()
                .filter(m -> "spare".equals(m.role() == null ? "" : m.role().toLowerCase(Locale.ROOT)))
                .filter(m -> m.slots() - m.slotsInUse() > 0)
                .sorted(java.util.Comparator.comparingDouble(ControlReply.MemberStatus::loadAverage)
                        .thenComparing(ControlReply.MemberStatus::name))
                .forEach(m -> {
                    if (!candidates.contains(m.name())) {
                        candidates.add(m.name());
                    }
                }));
        Map<String, String> chosen = new LinkedHashMap<>();
        for (HostSlot host : base.compute()) {
            if (!failed.contains(host.name())) {
                continue;
            }
            String preferred = placement.get(host.name());
            String pick = null;
            if (usable(preferred, failed, inUse, chosen, alive, view.isPresent())) {
                pick = preferred;
            } else {
                for (String candidate : candidates) {
                    if (usable(candidate, failed, inUse, chosen, alive, view.isPresent())) {
                        pick = candidate;
                        break;
                    }
                }
            }
            if (pick == null) {
                List<String> available = candidates.stream().filter(c -> usable(c, failed, inUse, chosen, alive, view.isPresent())).toList();
                throw new NoSpareLeftException("to replace " + host.name() + " in a restart",
                        (int) failed.stream().filter(inUse::contains).count(), available);
            }
            chosen.put(host.name(), pick);
        }
        return chosen;
    }

    private static boolean usable(String node, Set<String> failed, Set<String> inUse, Map<String, String> chosen,
                                  Set<String> alive, boolean viewKnown) {
        return node != null && !node.isBlank() && !failed.contains(node) && !inUse.contains(node)
                && !chosen.containsValue(node) && (!viewKnown || alive.contains(node));
    }

    private void report(String failureId, List<String> rankNodes) {
        try {
            if (failureId.isEmpty()) {
                daemon.registerJob(job, rankNodes);
            } else {
                daemon.recoveryCompleted(job, failureId, rankNodes);
            }
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + job + ": cannot report the relaunch's rank table to the daemon: " + e.getMessage());
        }
    }
}
