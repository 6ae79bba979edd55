package org.mpirunft.membership;

import java.util.List;
import java.util.Objects;

/**
 * What the group decided. Events derived from views ({@link NodeJoined}, {@link NodeFailed},
 * {@link NodeLeft}, {@link PartitionHealed}) reach every member of a view in the same order,
 * because every member installs the same sequence of views and derives them the same way.
 * {@link NodeSuspected} is announced by the coordinator, which is the only member that acts on
 * a suspicion, before the view that removes the node. {@link Expelled} concerns only the member
 * that receives it.
 */
public sealed interface MembershipEvent {

    /** The view in which the event happened (for removals and joins, the new view). */
    ClusterView view();

    /** A node joined. A member's own first view reports every member it found, itself included. */
    record NodeJoined(Member member, ClusterView view) implements MembershipEvent {
        public NodeJoined {
            Objects.requireNonNull(member);
            Objects.requireNonNull(view);
        }
    }

    /**
     * The coordinator's failure detector suspects a node, and the suspicion survived
     * verification; the view that removes it follows. Act on {@link NodeFailed}, not on this.
     */
    record NodeSuspected(Member member, ClusterView view) implements MembershipEvent {
        public NodeSuspected {
            Objects.requireNonNull(member);
            Objects.requireNonNull(view);
        }
    }

    /** A node was removed without announcing a leave: it crashed, hung, or lost its link. */
    record NodeFailed(Member member, ClusterView view) implements MembershipEvent {
        public NodeFailed {
            Objects.requireNonNull(member);
            Objects.requireNonNull(view);
        }
    }

    /** A node announced its leave, every member acknowledged it, then it left. */
    record NodeLeft(Member member, ClusterView view) implements MembershipEvent {
        public NodeLeft {
            Objects.requireNonNull(member);
            Objects.requireNonNull(view);
        }
    }

    /**
     * Groups that had been split merged again. {@code subgroups} are the views that merged, the
     * same list at every member; the members that are new to this member's view follow as
     * {@link NodeJoined} events.
     */
    record PartitionHealed(List<List<Member>> subgroups, ClusterView view) implements MembershipEvent {
        public PartitionHealed {
            subgroups = subgroups.stream().map(List::copyOf).toList();
            Objects.requireNonNull(view);
        }
    }

    /**
     * The group removed this member while it was hung or cut off, and the member has just found
     * out. Everything it does for the cluster must stop: the daemon self-fences on this event.
     *
     * @param reason why the member concluded it was expelled
     * @param detail for people: who said so, and which view
     * @param view   this member's own, stale, view at the time
     */
    record Expelled(Reason reason, String detail, ClusterView view) implements MembershipEvent {
        public enum Reason {
            /**
             * Members this member still counted on have a newer view without it: the group
             * removed it while it was hung, stopped, or cut off.
             */
            REMOVED_WHILE_UNRESPONSIVE,
            /**
             * The two sides of a partition met again and this member's side is the smaller one
             * (on a tie, the side whose coordinator id sorts last).
             */
            ON_SMALLER_SIDE_OF_PARTITION,
            /**
             * This member's new view lost a strict majority of the previous one to failures (not
             * to graceful leaves): it is cut off from the rest, which goes on without it. Found
             * at once, with no word from the other side, which a cut link never sends.
             */
            IN_MINORITY_AFTER_FAILURES
        }

        public Expelled {
            Objects.requireNonNull(reason);
            Objects.requireNonNull(detail);
            Objects.requireNonNull(view);
        }
    }
}
