package org.mpirunft.scheduler;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;

/**
 * The view the core acts in, and which of its members may take a job's ranks now: the members
 * with the loads they report now (a view changes only when members come and go, a load any
 * time), never a drained one, and for a pause or a move only those of the job's allocation.
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it.
 */
final class PlacementView {
    private ClusterView view = ClusterView.NONE;
    /** The membership's view as it is now: the same members as {@link #view}, with the loads they reported since. */
    private Supplier<ClusterView> currentLoads = () -> view;

    ClusterView view() {
        return view;
    }

    void moveTo(ClusterView newView) {
        view = newView;
    }

    /** Where fresh loads come from. */
    void loadsFrom(Supplier<ClusterView> membershipView) {
        this.currentLoads = membershipView;
    }

    /** The names of the view's members. */
    Set<String> alive() {
        return new HashSet<>(view.names());
    }

    /** The view's members, each with its load as reported now. */
    List<Member> membersNow() {
        Map<String, Member> fresh = new HashMap<>();
        currentLoads.get().members().forEach(m -> fresh.put(m.name(), m));
        return view.members().stream().map(m -> fresh.getOrDefault(m.name(), m)).toList();
    }

    /** The view's members not drained, with their loads now: where a restart's new allocation may go. */
    List<Member> inService() {
        return inService(membersNow());
    }

    /**
     * The members a job's replacements may go to: with spares registered, its rank nodes and its
     * spares only, each of its spares a spare for it whatever its daemon's role (a batch
     * allocation's last node, or a host the user listed beyond the ranks, runs a compute daemon).
     * Never a node the running launch lost ({@link JobRecord#lostNodes}): back in the group, it
     * still has no node daemon of the job's mpirun, and a spawn there fails.
     */
    List<Member> inAllocation(JobRecord job) {
        Set<String> lostByLaunch = new HashSet<>(job.lostNodes());
        return inAllocationOf(job).stream().filter(m -> !lostByLaunch.contains(m.name())).toList();
    }

    private List<Member> inAllocationOf(JobRecord job) {
        if (job.spares().isEmpty()) {
            return inService(membersNow());
        }
        Set<String> spares = new HashSet<>(job.spares());
        Set<String> allocation = new HashSet<>(job.rankNodes());
        allocation.addAll(spares);
        return inService(membersNow()).stream().filter(m -> allocation.contains(m.name()))
                .map(m -> spares.contains(m.name()) && m.role() != NodeRole.SPARE ? asSpare(m) : m).toList();
    }

    /** The members not drained: a drained node gets no new rank. */
    private static List<Member> inService(List<Member> members) {
        return members.stream().filter(m -> !m.load().isDrained()).toList();
    }

    private static Member asSpare(Member member) {
        NodeMetadata m = member.metadata();
        return new Member(member.id(), new NodeMetadata(m.name(), NodeRole.SPARE, m.slots(), m.controlAddress()), member.load());
    }

    /** The job's ranks on nodes that are not in the view. */
    Map<Integer, String> lostOffView(JobRecord job) {
        Set<String> alive = alive();
        Map<Integer, String> lost = new TreeMap<>();
        for (int rank = 0; rank < job.rankNodes().size(); rank++) {
            if (!alive.contains(job.rankNodes().get(rank))) {
                lost.put(rank, job.rankNodes().get(rank));
            }
        }
        return lost;
    }
}
