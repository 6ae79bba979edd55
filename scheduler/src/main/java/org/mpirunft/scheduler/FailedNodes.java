package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;

/**
 * Which nodes out of the view count as lost, and from when. A node counts once this daemon has
 * seen it in a view and it left, unless its daemon left gracefully (a stop or an upgrade leaves
 * the node's job processes running), or failed while its host runs on: a daemon crash, which a
 * new daemon follows. Owns the probe of a failed node's host ({@link HostProbe}), the hold of its
 * ranks while the probe runs and then for the restart grace, and the listener that fences each
 * node once it counts as lost. Every daemon keeps its own, since each fences on its own; what the
 * leader does with the lost ranks is {@link RecoveryDecisions}'s.
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it. A probe answers on another
 * thread, so its answer goes back through the core ({@code probedBy}), which takes the lock and
 * calls {@link #probed}.
 */
final class FailedNodes {
    /** The core's logger: operators and benchmarks set the scheduler's log level by its name. */
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());
    /** How long a probe of a failed node may take before the node counts as lost. */
    static final Duration PROBE_BOUND = Duration.ofSeconds(1);

    /** A failed node held as a crashed daemon's, until {@code untilNanos} ({@code nanos} scale). */
    private record Held(Member member, long untilNanos) {
    }

    private final String self;
    private final JobTable table;
    private final LongSupplier nanos;
    /** Takes a probe's answer back under the core's lock. */
    private final BiConsumer<Member, Boolean> probedBy;
    /** Every node this daemon saw in a view. */
    private final Set<String> seenNodes = new HashSet<>();
    /**
     * Nodes whose daemon left the group gracefully and has not joined again. A daemon leaves
     * so on a stop or restart (an upgrade) and leaves its node's job processes running: their
     * ranks are not lost. If the node itself goes down after, the job's ranks report the loss.
     */
    private final Set<String> leftGracefully = new HashSet<>();
    /**
     * Nodes whose daemon failed out of the view while their host runs on ({@link HostProbe}), and
     * until when their ranks are held as alive: a daemon crash, which systemd
     * follows with a new daemon that adopts the node's job processes, is no node loss. A node
     * stays here while it is probed ({@link #PROBE_BOUND}), then for the restart grace; it leaves
     * when a daemon of it joins again (nothing was lost), or when the time runs out (its ranks are
     * lost, as for any failed node). A report of its ranks (ULFM, Open MPI, a rank's exit) is
     * judged meanwhile as always.
     */
    private final Map<String, Held> daemonDown = new HashMap<>();
    private HostProbe hostProbe = HostProbe.NONE;
    private Duration restartGrace = SchedulerCore.DAEMON_RESTART_GRACE;
    /** Told of each failed node once it counts as lost (the daemon fences it off the MPI runtime then). */
    private Consumer<Member> nodeLost = member -> { };

    FailedNodes(String self, JobTable table, LongSupplier nanos, BiConsumer<Member, Boolean> probedBy) {
        this.self = self;
        this.table = table;
        this.nanos = nanos;
        this.probedBy = probedBy;
    }

    /** See {@link SchedulerCore#probeFailedNodes}. */
    void probeWith(HostProbe probe, Duration grace) {
        this.hostProbe = probe;
        this.restartGrace = grace;
    }

    /** See {@link SchedulerCore#onNodeLost}. */
    void onNodeLost(Consumer<Member> listener) {
        this.nodeLost = listener;
    }

    /** Whether {@code node}'s daemon failed while its host answers, and its ranks are still kept. */
    boolean holds(String node) {
        return daemonDown.containsKey(node);
    }

    /** Ends the holds whose time ran out: their nodes are lost. True if any ended. */
    boolean expire() {
        long now = nanos.getAsLong();
        List<Held> expired = daemonDown.values().stream().filter(held -> now - held.untilNanos() >= 0).toList();
        if (expired.isEmpty()) {
            return false;
        }
        expired.forEach(held -> {
            daemonDown.remove(held.member().name());
            LOG.info(() -> self + ": " + held.member().name() + "'s daemon did not come back in time: the node is lost");
            nodeLost.accept(held.member());
        });
        return true;
    }

    /** {@code member}'s daemon left the group gracefully: the ranks on its node run on. */
    void left(Member member) {
        LOG.info(() -> self + ": " + member.name() + "'s daemon left the group gracefully; the ranks on its node run on");
        leftGracefully.add(member.name());
    }

    /** {@code member}'s daemon failed out of the view: its node is lost, or held while its host is probed. */
    void failed(Member member) {
        leftGracefully.remove(member.name());
        probe(member);
    }

    /**
     * Holds {@code member}'s node while its host is probed, if a live job runs ranks there or its
     * mpirun (whatever the job's mode: a new daemon adopts them from the handover record, and a
     * node taken for lost is fenced off the MPI runtime, which kills the ranks there, or, on
     * mpirun's node, the whole job). A node with none of a job's processes has nothing to keep,
     * nor has one whose ranks were reported lost before its daemon failed: they are being
     * replaced already (the report came first; {@link #lostAfterAll} covers the other order).
     */
    private void probe(Member member) {
        String node = member.name();
        List<JobRecord> live = table.jobs().stream().filter(job -> job.state().isLive()).toList();
        boolean reportedLost = live.stream().anyMatch(job -> ranksReportedLost(job, node));
        boolean jobProcessesThere = live.stream().anyMatch(job -> job.launcher().equals(node)
                || job.rankNodes().contains(node) && !ranksReportedLost(job, node));
        if (hostProbe == HostProbe.NONE || !jobProcessesThere) {
            if (hostProbe != HostProbe.NONE && reportedLost) {
                LOG.info(() -> self + ": the ranks on " + node + " were reported lost before its daemon failed: its node is lost");
            }
            nodeLost.accept(member);
            return;
        }
        daemonDown.put(node, new Held(member, nanos.getAsLong() + PROBE_BOUND.toNanos()));
        hostProbe.daemonGoneHostUp(member).thenAccept(up -> probedBy.accept(member, up));
    }

    /** Whether {@code job}'s ranks on {@code node} were reported lost: a recovery under way replaces them, or one did. */
    private static boolean ranksReportedLost(JobRecord job, String node) {
        return job.lostNodes().contains(node) || job.recovery().map(r -> r.lostRanks().containsValue(node)).orElse(false);
    }

    /**
     * The probe of {@code member}'s host answered: its daemon crashed ({@code up}), or the node is
     * lost. False if the node is no longer held for this member (a daemon of it joined again).
     */
    boolean probed(Member member, boolean up) {
        String node = member.name();
        Held held = daemonDown.get(node);
        if (held == null || !held.member().equals(member)) {
            return false;
        }
        if (up) {
            daemonDown.put(node, new Held(member, nanos.getAsLong() + restartGrace.toNanos()));
            LOG.info(() -> self + ": " + node + "'s daemon failed but its host answers: a daemon crash; the ranks there are kept for "
                    + restartGrace.toSeconds() + " s, until a new daemon joins, unless they are reported lost");
        } else {
            daemonDown.remove(node);
            LOG.info(() -> self + ": " + node + "'s host does not answer either: the node is lost");
            nodeLost.accept(member);
        }
        return true;
    }

    /** A recovery or restart that replaces ranks of a held node: the node is lost after all. */
    void lostAfterAll(Map<Integer, String> lostRanks) {
        for (String node : Set.copyOf(lostRanks.values())) {
            Held held = daemonDown.remove(node);
            if (held != null) {
                LOG.info(() -> self + ": the ranks on " + node + " were reported lost: its node is lost, not only its daemon");
                nodeLost.accept(held.member());
            }
        }
    }

    /** A new view: its members were seen, their daemons did not leave, and a held node's daemon is back. */
    void viewed(ClusterView newView) {
        seenNodes.addAll(newView.names());
        leftGracefully.removeAll(newView.names());
        newView.names().stream().filter(daemonDown::containsKey).forEach(node ->
                LOG.info(() -> self + ": " + node + "'s daemon is back; the ranks on its node were not lost"));
        daemonDown.keySet().removeAll(newView.names());
    }

    /**
     * The nodes this daemon saw that are out of the view ({@code alive}) and count as lost, sorted.
     * A node counts as gone only once this daemon has seen it: after a restart of the whole
     * cluster the daemons come back one at a time, and the first leader must not take the others
     * for dead.
     */
    List<String> departed(Set<String> alive) {
        return seenNodes.stream().filter(n -> !alive.contains(n) && !leftGracefully.contains(n) && !daemonDown.containsKey(n))
                .sorted().toList();
    }
}
