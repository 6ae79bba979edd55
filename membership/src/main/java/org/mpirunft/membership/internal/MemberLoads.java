package org.mpirunft.membership.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.NodeLoad;

/**
 * The load each member of the view last reported: a member's reports are numbered, and only a
 * newer one than the last kept replaces it (reports to newcomers and periodic ones may cross).
 * What the views and events this member hands out carry as each member's load.
 *
 * <p>Not thread-safe: guarded by {@code MembershipImpl.lock}, which every caller holds, because
 * the loads are kept for the members of the view that lock guards.
 */
final class MemberLoads {
    @GuardedBy("MembershipImpl.lock")
    private final Map<String, NodeLoad> loads = new HashMap<>();
    @GuardedBy("MembershipImpl.lock")
    private final Map<String, Long> seqs = new HashMap<>();

    /** Keeps {@code load}, the report numbered {@code seq} of {@code memberId}, if it is newer than the one kept. */
    void received(String memberId, long seq, NodeLoad load) {
        Long last = seqs.get(memberId);
        if (last == null || seq > last) {
            seqs.put(memberId, seq);
            loads.put(memberId, load);
        }
    }

    /** The last load {@code memberId} reported; {@link NodeLoad#UNKNOWN} before its first report. */
    NodeLoad of(String memberId) {
        return loads.getOrDefault(memberId, NodeLoad.UNKNOWN);
    }

    /** {@code view} with each member's last reported load; a member with none keeps the load it has. */
    ClusterView applyTo(ClusterView view) {
        if (loads.isEmpty()) {
            return view;
        }
        return new ClusterView(view.id(), view.members().stream()
                .map(m -> m.withLoad(loads.getOrDefault(m.id(), m.load())))
                .toList());
    }

    /** Forgets the members that are not among {@code memberIds}. */
    void retain(Set<String> memberIds) {
        loads.keySet().retainAll(memberIds);
        seqs.keySet().retainAll(memberIds);
    }

    void clear() {
        loads.clear();
        seqs.clear();
    }
}
