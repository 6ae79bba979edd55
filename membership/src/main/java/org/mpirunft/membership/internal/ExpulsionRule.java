package org.mpirunft.membership.internal;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.mpirunft.membership.MembershipEvent.Expelled.Reason;

/**
 * Decides whether this member is the one that has to go, given another group's view that does
 * not contain it. That view comes from an {@link WireMessage.ExpelledNotice} (the coordinator of
 * a group that removed this member) or from the subgroups of a merge.
 * <ul>
 *   <li>If this member's own view shares a member with the other view, and the other view is
 *       newer (a higher view id), that member went on without this one while this one still
 *       counted on it: this member was removed while it was unresponsive (hung, stopped, or cut
 *       off in one direction), and is expelled. The group that removed it installed at least one
 *       view after this member's last, so its id is higher. A shared member in a view that is
 *       not newer is no evidence: the notice was sent before a merge that this member has
 *       already installed (a healed side's coordinator telling the others, while the merge was
 *       on its way, that its lone view lacks them).
 *       <br>It counts only if the other view's coordinator once shared a view with this member:
 *       otherwise that group never held this member and cannot have removed it. The shared
 *       member is one that sat in both groups while they formed apart: at start-up, a member
 *       whose join request to the first coordinator timed out asked another that was still
 *       alone, was taken into its two-member view, then took the first coordinator's late
 *       answer. HangDetectionIT's n5 once expelled itself on that (its view [n5,n4], the merged
 *       subgroup [n1,n4,n2,n3]); the merge joins the two groups and nobody yields.</li>
 *   <li>If the views are disjoint and some member of the other view once shared a view with this
 *       member, this is a partition whose sides each removed the other. The smaller side is
 *       expelled; on a tie, the side whose coordinator id sorts last. Both sides apply the same
 *       rule to the same two views, so exactly one side yields.</li>
 *   <li>If the views are disjoint and no member of the other view ever shared one with this
 *       member, nobody removed anybody: the two groups formed apart (a member that found no
 *       one at start-up and formed a group of its own) and their merge joins them.</li>
 *   <li>A view that contains this member is no evidence against it.</li>
 * </ul>
 * Member lists are ordered as views are: the coordinator first.
 */
final class ExpulsionRule {
    private ExpulsionRule() {
    }

    static Optional<Reason> evaluate(String selfId, long myViewId, List<String> myViewIds, long otherViewId,
                                     List<String> otherViewIds, Set<String> fellows) {
        if (myViewIds.isEmpty() || otherViewIds.isEmpty() || otherViewIds.contains(selfId)) {
            return Optional.empty();
        }
        if (otherViewIds.stream().anyMatch(myViewIds::contains)) {
            boolean heldThisMember = fellows.contains(otherViewIds.getFirst());
            return heldThisMember && otherViewId > myViewId ? Optional.of(Reason.REMOVED_WHILE_UNRESPONSIVE) : Optional.empty();
        }
        if (otherViewIds.stream().noneMatch(fellows::contains)) {
            return Optional.empty();
        }
        int theirs = otherViewIds.size();
        int mine = myViewIds.size();
        if (theirs > mine || (theirs == mine && otherViewIds.getFirst().compareTo(myViewIds.getFirst()) < 0)) {
            return Optional.of(Reason.ON_SMALLER_SIDE_OF_PARTITION);
        }
        return Optional.empty();
    }
}
