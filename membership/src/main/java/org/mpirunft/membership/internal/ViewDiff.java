package org.mpirunft.membership.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.MembershipEvent.NodeFailed;
import org.mpirunft.membership.MembershipEvent.NodeJoined;
import org.mpirunft.membership.MembershipEvent.NodeLeft;
import org.mpirunft.membership.MembershipEvent.PartitionHealed;

/**
 * Turns a view change into events. This is a pure function of the previous view, the new view
 * and the set of members that announced a leave, which is why every member that installs the
 * same views derives the same events in the same order:
 * <ol>
 *   <li>{@link PartitionHealed}, if the new view is a merge;</li>
 *   <li>one {@link NodeLeft} per member of the previous view that is not in the new one and
 *       announced its leave, then one {@link NodeFailed} per other member that is not, each in
 *       the previous view's order: a listener that acts on the first event of a view knows
 *       by then which of the departed left on purpose;</li>
 *   <li>one {@link NodeJoined} per member of the new view that was not in the previous one, in
 *       the new view's order (on a member's first view: every member, itself included).</li>
 * </ol>
 */
final class ViewDiff {
    record Result(ClusterView view, List<MembershipEvent> events, List<Member> failed, List<Member> joined) {
    }

    private ViewDiff() {
    }

    /**
     * @param previous   the view before, {@link ClusterView#NONE} before the first
     * @param next       the new view
     * @param subgroups  the views that merged into {@code next}; empty unless it is a merge
     * @param leavingIds ids of members that announced a leave
     */
    static Result apply(ClusterView previous, ClusterView next, List<List<Member>> subgroups, Set<String> leavingIds) {
        List<MembershipEvent> events = new ArrayList<>();
        if (!subgroups.isEmpty()) {
            events.add(new PartitionHealed(subgroups, next));
        }
        Set<String> nextIds = new HashSet<>();
        next.members().forEach(m -> nextIds.add(m.id()));
        Set<String> previousIds = new HashSet<>();
        previous.members().forEach(m -> previousIds.add(m.id()));

        List<Member> failed = new ArrayList<>();
        for (Member gone : previous.members()) {
            if (!nextIds.contains(gone.id()) && leavingIds.contains(gone.id())) {
                events.add(new NodeLeft(gone, next));
            }
        }
        for (Member gone : previous.members()) {
            if (!nextIds.contains(gone.id()) && !leavingIds.contains(gone.id())) {
                events.add(new NodeFailed(gone, next));
                failed.add(gone);
            }
        }
        List<Member> joined = new ArrayList<>();
        for (Member member : next.members()) {
            if (!previousIds.contains(member.id())) {
                events.add(new NodeJoined(member, next));
                joined.add(member);
            }
        }
        return new Result(next, List.copyOf(events), List.copyOf(failed), List.copyOf(joined));
    }
}
