package org.mpirunft.membership.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent.Expelled;

/**
 * Whether this member is still one of the group: the members it counts for a majority (the quorum
 * base: set on joins and merges, lowered by graceful leaves only, so that one-by-one losses add
 * up), every member it has shared a view with, and the three ways it finds itself expelled: a
 * coordinator's expelled notice, a merge with a subgroup that had dropped it (both by
 * {@link ExpulsionRule}), or a view that kept only a minority after failures. Each way returns a
 * {@link Verdict} at most once per membership; the caller reports it.
 *
 * <p>Not thread-safe: guarded by {@code MembershipImpl.lock}, which every caller holds, because a
 * verdict is queued as an event in the order of the view changes around it.
 */
final class ExpulsionWatch {
    /** This member is expelled: why, and the view it held, which goes with the event. */
    record Verdict(Expelled.Reason reason, String detail, ClusterView staleView) {
    }

    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    /** This member's name, for the log. */
    private final String name;
    /** The replicated log's voters as this member knows them; empty when it keeps no log. */
    private final Supplier<List<String>> voters;
    /** Whether this member's log names a leader now (one it hears from, so its voter list follows the leader's). */
    private final BooleanSupplier leaderKnown;
    /**
     * Set by a merge, cleared once the log names a leader: until then this member's voter list is
     * the one it held on its side of the partition, and a side that was cut off holds one the
     * majority has since changed (SplitBrainIT saw the old leader, merged back with a list of 5
     * voters where the group had 3, count a view of 2 of the 3 as "2 of 5" and fence itself).
     * Meanwhile the members counted at the merge stand in for the voters.
     */
    @GuardedBy("MembershipImpl.lock")
    private boolean votersStale;
    /** Members the group counts for quorum: set on joins and merges, lowered by graceful leaves only. */
    @GuardedBy("MembershipImpl.lock")
    private int quorumBase;
    @GuardedBy("MembershipImpl.lock")
    private boolean reported;
    /**
     * Every member that has shared a view with this one since it started. Two groups whose
     * members never met were not cut apart: they formed apart (discovery raced at start-up)
     * and their merge expels nobody.
     */
    @GuardedBy("MembershipImpl.lock")
    private final Set<String> fellows = new HashSet<>();

    ExpulsionWatch(String name, Supplier<List<String>> voters, BooleanSupplier leaderKnown) {
        this.name = name;
        this.voters = voters;
        this.leaderKnown = leaderKnown;
    }

    int quorumBase() {
        return quorumBase;
    }

    /** Whether an expulsion was found since this member last joined or merged. */
    boolean reported() {
        return reported;
    }

    /** A new incarnation: nobody met yet, nothing reported. The quorum base is set by its first view. */
    void reset() {
        reported = false;
        fellows.clear();
    }

    /** Counts the quorum base for the view {@code next} that followed {@code previous}. */
    void countQuorum(ClusterView previous, ClusterView next, boolean merged, boolean joined, int failed) {
        if (previous == ClusterView.NONE || merged || joined) {
            quorumBase = next.members().size();
        } else {
            // Graceful leaves shrink the group; failures do not, so one-by-one losses add up.
            quorumBase -= Math.max(0, previous.members().size() - next.members().size() - failed);
        }
    }

    /** The members of a view this member now holds have met it. */
    void met(Set<String> memberIds) {
        fellows.addAll(memberIds);
    }

    /**
     * A coordinator, {@code sender}, says its view is without this member; {@code view} is this
     * member's, {@code addresses} its members' addresses.
     */
    Optional<Verdict> onNotice(String selfId, ClusterView view, Map<String, Address> addresses, Address sender,
                               WireMessage.ExpelledNotice notice) {
        if (reported || selfId == null) {
            return Optional.empty();
        }
        List<String> myIds = view.members().stream().map(Member::id).toList();
        Optional<Expelled.Reason> reason = overruledByVoters(ExpulsionRule.evaluate(selfId, view.id(), myIds, notice.viewId(),
                notice.memberIds(), fellows), view, addresses);
        if (reason.isEmpty()) {
            return Optional.empty();
        }
        String detail = "coordinator " + MetadataCodec.metadataOf(sender).name() + " (" + MetadataCodec.idOf(sender)
                + ") has view " + notice.viewId() + " of " + notice.memberIds().size()
                + " members without this node; this node's view " + view.id() + " has " + myIds.size();
        return found(reason.get(), detail, view);
    }

    /**
     * A merge can come before any expelled notice (the other side's merge leader may act first):
     * the merged subgroups are checked with the same rule, against the view before the merge.
     * Merged, this member is one of the group again, and a later expulsion is news.
     */
    Optional<Verdict> afterMerge(String selfId, ClusterView previous, Map<String, Address> previousAddresses,
                                 List<ClusterView> subgroups) {
        Optional<Verdict> verdict = Optional.empty();
        if (!reported && selfId != null) {
            List<String> myIds = previous.members().stream().map(Member::id).toList();
            for (ClusterView subgroup : subgroups) {
                List<String> ids = subgroup.members().stream().map(Member::id).toList();
                Optional<Expelled.Reason> reason = overruledByVoters(ExpulsionRule.evaluate(selfId, previous.id(), myIds,
                        subgroup.id(), ids, fellows), previous, previousAddresses);
                if (reason.isPresent()) {
                    String detail = "merged with subgroup " + subgroup.names()
                            + " that did not contain this node; this node's view " + previous.id() + " was "
                            + previous.names();
                    verdict = found(reason.get(), detail, previous);
                    break;
                }
            }
        }
        reported = false;
        votersStale = true;
        return verdict;
    }

    /**
     * A view that lost a strict majority of the group's members to failures (since the last join,
     * merge or graceful leave, see {@link #quorumBase}) leaves this member on the minority side of
     * a partition (a cut link, a switch gone): the majority goes on without it and, with no link,
     * can never say so.
     *
     * @param addresses the addresses of {@code next}'s members, by member id
     */
    Optional<Verdict> afterFailures(ClusterView previous, ClusterView next, int failed, Map<String, Address> addresses) {
        if (reported || failed == 0 || previous == ClusterView.NONE) {
            return Optional.empty();
        }
        if (votersStale && leaderKnown.getAsBoolean()) {
            votersStale = false;
        }
        List<String> voters = votersStale ? List.of() : this.voters.get();
        if (!voters.isEmpty()) {
            // With a replicated log, the majority is the voters': the log's leader replaces lost
            // voters, so a side that lost members one by one still holds a majority of them.
            long present = votersIn(next, addresses, voters);
            if (2 * present <= voters.size()) {
                return found(Expelled.Reason.IN_MINORITY_AFTER_FAILURES, "view " + next.id() + " " + next.names() + " keeps "
                        + present + " of the " + voters.size() + " voters of the group's log", previous);
            }
            return Optional.empty();
        }
        if (2 * next.members().size() < quorumBase) {
            return found(Expelled.Reason.IN_MINORITY_AFTER_FAILURES, "view " + next.id() + " " + next.names() + " keeps "
                    + next.members().size() + " of the " + quorumBase + " members the group had since its last join or leave",
                    previous);
        }
        return Optional.empty();
    }

    /**
     * The size rule of a partition ({@link Expelled.Reason#ON_SMALLER_SIDE_OF_PARTITION}) does not
     * hold against a side whose view keeps a strict majority of the replicated log's voters: that
     * side can commit, and the other cannot. Sizes mislead when a view is stale: a healed side's
     * coordinator whose failure detector has not yet removed its dead members counts them, and
     * its notice once made the live majority fence itself (its ranks killed) in SplitBrainIT.
     * The stale side finds its own minority when its detector catches up.
     */
    private Optional<Expelled.Reason> overruledByVoters(Optional<Expelled.Reason> reason, ClusterView view,
                                                        Map<String, Address> addresses) {
        if (reason.isEmpty() || reason.get() != Expelled.Reason.ON_SMALLER_SIDE_OF_PARTITION) {
            return reason;
        }
        List<String> voters = this.voters.get();
        long present = votersIn(view, addresses, voters);
        if (voters.isEmpty() || 2 * present <= voters.size()) {
            return reason;
        }
        LOG.log(System.Logger.Level.INFO, () -> name + ": the other side's view is larger, but view " + view.id() + " " + view.names()
                + " keeps " + present + " of the " + voters.size() + " voters of the group's log: staying");
        return Optional.empty();
    }

    private static long votersIn(ClusterView view, Map<String, Address> addresses, List<String> voters) {
        return view.members().stream().map(m -> logIdOf(m, addresses)).filter(voters::contains).count();
    }

    /** A member's id in the replicated log, from its JGroups address; empty when it has none. */
    private static String logIdOf(Member member, Map<String, Address> addresses) {
        Address address = addresses.get(member.id());
        return address == null ? "" : RaftLog.idOf(address).orElse("");
    }

    private Optional<Verdict> found(Expelled.Reason reason, String detail, ClusterView staleView) {
        reported = true;
        return Optional.of(new Verdict(reason, detail, staleView));
    }
}
