package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent.Expelled;
import org.mpirunft.membership.MembershipEvent.NodeSuspected;
import org.mpirunft.membership.NodeLoad;

/**
 * The view this member holds and what it knows of the members in it: their addresses, their last
 * loads ({@link MemberLoads}), who is suspected in this view, who announced a leave, and this
 * member's own standing in the group ({@link ExpulsionWatch}). Turns each JGroups view into a
 * {@link ClusterView} and the events it means ({@link ViewDiff}); carrying them out (queuing the
 * events, telling the expulsion probe, sending) is {@link MembershipImpl}'s.
 *
 * <p>Not thread-safe: guarded by {@code MembershipImpl.lock}, which every caller holds. That lock
 * also guards the channel's lifecycle, which the same JGroups callbacks read, and orders the events
 * queued from the changes made here: one lock for both keeps the events in the order of the state.
 */
final class GroupView {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    /**
     * What one JGroups view changed: the events and the members that failed or joined ({@code diff}),
     * the addresses of those that failed, whether it merged subgroups, this member's expulsion if
     * the view shows it, whether this member coordinates the view, and the addresses of the newcomers.
     */
    record Change(ClusterView previous, ViewDiff.Result diff, List<Address> failed, boolean merged,
                  Optional<Expelled> expelled, boolean coordinator, List<Address> newcomers) {
    }

    private final String name;
    @GuardedBy("MembershipImpl.lock") private String selfId;
    @GuardedBy("MembershipImpl.lock") private ClusterView view = ClusterView.NONE;
    /** Addresses of the members of {@link #view}, by member id. */
    @GuardedBy("MembershipImpl.lock") private final Map<String, Address> addresses = new HashMap<>();
    @GuardedBy("MembershipImpl.lock") private final MemberLoads loads = new MemberLoads();
    /** Members that announced a leave; their removal is a leave, not a failure. */
    @GuardedBy("MembershipImpl.lock") private final Set<String> leaving = new HashSet<>();
    /** Members already reported as suspected in the current view. */
    @GuardedBy("MembershipImpl.lock") private final Set<String> suspected = new HashSet<>();
    @GuardedBy("MembershipImpl.lock") private final ExpulsionWatch expulsion;

    /** @param log the replicated log, or null when the member keeps none */
    GroupView(String name, RaftLog log) {
        this.name = name;
        this.expulsion = log == null ? new ExpulsionWatch(name, List::of, () -> false)
                : new ExpulsionWatch(name, log::voters, () -> log.leader().isPresent());
    }

    /** This member's id, known from its first view on; null before. */
    String selfId() {
        return selfId;
    }

    ClusterView view() {
        return view;
    }

    /** The view with each member's last reported load. */
    ClusterView withLoads() {
        return loads.applyTo(view);
    }

    int quorumBase() {
        return expulsion.quorumBase();
    }

    /** Whether this member found itself expelled since it last joined or merged. */
    boolean expelled() {
        return expulsion.reported();
    }

    List<String> othersInView() {
        return view.members().stream().map(Member::id).filter(id -> !id.equals(selfId)).toList();
    }

    /** Addresses of the current members with these node names. */
    List<Address> addressesOf(Collection<String> nodeNames) {
        List<Address> result = new ArrayList<>();
        for (Member m : view.members()) {
            if (nodeNames.contains(m.name())) {
                result.add(addresses.get(m.id()));
            }
        }
        return result;
    }

    List<Address> addressesOfIds(Collection<String> ids) {
        return ids.stream().map(addresses::get).filter(Objects::nonNull).toList();
    }

    /** The address of the member {@code memberId} of the view; null if it is none. */
    Address addressOf(String memberId) {
        return addresses.get(memberId);
    }

    /** The members that announced a leave, as this member knows. */
    Set<String> leaving() {
        return Collections.unmodifiableSet(leaving);
    }

    /** {@code memberId} announced its leave; false if that was known. */
    boolean leaves(String memberId) {
        return leaving.add(memberId);
    }

    /** Keeps a member's load report if the sender is a member of the view and the report is its newest. */
    void loadReported(String memberId, long seq, NodeLoad load) {
        if (addresses.containsKey(memberId)) {
            loads.received(memberId, seq, load);
        }
    }

    /**
     * The event for {@code memberId}'s suspicion: once per member per view, and only of a member of
     * it that has not announced its leave. A leaver closes its channel once everyone acknowledged
     * the leave, and a failure detector can see it go before the view that removes it; that view
     * reports the leave (a leaver that dies meanwhile was leaving anyway).
     */
    Optional<NodeSuspected> suspect(String memberId) {
        Optional<Member> member = view.memberById(memberId);
        if (member.isEmpty()) {
            return Optional.empty();
        }
        if (leaving.contains(memberId)) {
            LOG.log(Level.INFO, () -> name + ": " + member.get().name() + " is suspected while leaving: reported as its leave");
            return Optional.empty();
        }
        if (!suspected.add(memberId)) {
            return Optional.empty();
        }
        LOG.log(Level.INFO, () -> name + ": " + member.get().name() + " is suspected");
        return Optional.of(new NodeSuspected(member.get(), loads.applyTo(view)));
    }

    /** This member's expulsion, if a coordinator's notice shows it. */
    Optional<Expelled> expelledBy(Address sender, WireMessage.ExpelledNotice notice) {
        return expulsion.onNotice(selfId, view, addresses, sender, notice).map(this::expelledEvent);
    }

    /**
     * Takes JGroups' {@code newView} as this member's view; {@code self} is this member's address.
     * A merge's subgroups and the failures are checked for this member's expulsion against the view
     * before it, with the loads known then.
     */
    Change apply(View newView, Address self) {
        if (selfId == null && self != null) {
            selfId = MetadataCodec.idOf(self);
        }
        ClusterView previous = view;
        ClusterView next = toClusterView(newView);
        List<ClusterView> subgroupViews = newView instanceof MergeView merge
                ? merge.getSubgroups().stream().map(this::toClusterView).toList()
                : List.of();
        List<List<Member>> subgroups = subgroupViews.stream().map(ClusterView::members).toList();
        ViewDiff.Result diff = ViewDiff.apply(previous, next, subgroups, leaving);

        Map<String, Address> before = new HashMap<>(addresses);
        addresses.clear();
        for (Address a : newView.getMembers()) {
            addresses.put(MetadataCodec.idOf(a), a);
        }
        List<Address> failed = diff.failed().stream().map(m -> before.get(m.id())).filter(Objects::nonNull).toList();
        boolean merged = !subgroups.isEmpty();
        expulsion.countQuorum(previous, next, merged, !diff.joined().isEmpty(), diff.failed().size());
        Optional<Expelled> expelled = (merged ? expulsion.afterMerge(selfId, previous, before, subgroupViews)
                : expulsion.afterFailures(previous, next, diff.failed().size(), addresses)).map(this::expelledEvent);
        Set<String> ids = addresses.keySet();
        leaving.retainAll(ids);
        suspected.clear();
        loads.retain(ids);
        view = next;
        expulsion.met(ids);
        boolean coordinator = selfId != null && selfId.equals(next.coordinator().map(Member::id).orElse(null));
        List<Address> newcomers = diff.joined().stream().map(m -> addresses.get(m.id())).filter(Objects::nonNull).toList();
        return new Change(previous, diff, failed, merged, expelled, coordinator, newcomers);
    }

    /** A new incarnation: no view, nobody known. */
    void reset() {
        selfId = null;
        view = ClusterView.NONE;
        addresses.clear();
        loads.clear();
        leaving.clear();
        suspected.clear();
        expulsion.reset();
    }

    private Expelled expelledEvent(ExpulsionWatch.Verdict verdict) {
        return new Expelled(verdict.reason(), verdict.detail(), loads.applyTo(verdict.staleView()));
    }

    private ClusterView toClusterView(View v) {
        List<Member> members = new ArrayList<>(v.size());
        for (Address a : v.getMembers()) {
            String id = MetadataCodec.idOf(a);
            members.add(new Member(id, MetadataCodec.metadataOf(a), loads.of(id)));
        }
        return new ClusterView(v.getViewId().getId(), members);
    }
}
