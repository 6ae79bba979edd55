package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jgroups.Address;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.Util;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent.Expelled;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;

/**
 * A partition heals while one side's view is stale: its coordinator's failure detector has not
 * yet removed two dead members, so its view (3) is larger than the live side's (2), which holds
 * every voter of its log. The live side must not yield to the larger, stale view.
 */
class ExpulsionWatchTest {
    private final Map<String, Address> addresses = new HashMap<>();
    private final Map<String, Member> members = new HashMap<>();

    @Test
    void aSideThatHoldsTheLogsVoterMajorityStaysAgainstALargerView() {
        ExpulsionWatch watch = watchOnLiveSide(List.of("node3", "node2"));
        assertEquals(Optional.empty(), watch.onNotice(id("node2"), liveView(), addresses, address("spare1"), staleNotice()),
                "node2's side holds 2 of its log's 2 voters; the larger view is stale");
    }

    @Test
    void aSideWithoutTheVoterMajorityYieldsToTheLargerView() {
        // The same views, but this side's log still counts the other side's members as voters.
        ExpulsionWatch watch = watchOnLiveSide(List.of("node3", "node2", "spare1", "node1", "head"));
        Optional<ExpulsionWatch.Verdict> verdict = watch.onNotice(id("node2"), liveView(), addresses, address("spare1"), staleNotice());
        assertTrue(verdict.isPresent(), "2 of 5 voters is no majority: the size rule holds");
        assertEquals(Expelled.Reason.ON_SMALLER_SIDE_OF_PARTITION, verdict.get().reason());
    }

    @Test
    void withoutAReplicatedLogTheSizeRuleHolds() {
        ExpulsionWatch watch = watchOnLiveSide(List.of());
        assertEquals(Expelled.Reason.ON_SMALLER_SIDE_OF_PARTITION,
                watch.onNotice(id("node2"), liveView(), addresses, address("spare1"), staleNotice()).orElseThrow().reason());
    }

    @Test
    void aMergeWithTheLargerStaleSubgroupExpelsNobodyOnTheVotersSide() {
        ExpulsionWatch watch = watchOnLiveSide(List.of("node3", "node2"));
        ClusterView stale = new ClusterView(5, List.of(member("spare1"), member("node1"), member("head")));
        assertEquals(Optional.empty(), watch.afterMerge(id("node2"), liveView(), addresses, List.of(liveView(), stale)));
    }

    /**
     * The old leader, spare1, merged back holding the list of 5 voters it had when it was cut off,
     * where the group's log now has 3 (spare1, node2, node3); node2 is lost before spare1's log
     * hears from a leader. Its view keeps 2 of the 3 members of the merge: it stays. Once its log
     * names a leader, its list is the group's again and counts.
     */
    @Test
    void aMemberMergedBackWithAStaleVoterListCountsTheMergedMembersUntilItsLogHasALeader() {
        List<String> stale = logIds("node3", "node1", "head", "spare1", "node2");
        boolean[] leader = {false};
        ExpulsionWatch watch = new ExpulsionWatch("spare1", () -> stale, () -> leader[0]);
        ClusterView alone = cutOff(watch);
        ClusterView merged = new ClusterView(7, List.of(member("spare1"), member("node2"), member("node3")));
        watch.countQuorum(alone, merged, true, false, 0);
        assertEquals(Optional.empty(), watch.afterMerge(id("spare1"), alone, addresses, List.of(alone,
                new ClusterView(6, List.of(member("node2"), member("node3"))))), "expelled already, and merged back");
        ClusterView withoutNode2 = new ClusterView(8, List.of(member("spare1"), member("node3")));
        watch.countQuorum(merged, withoutNode2, false, false, 1);
        assertEquals(Optional.empty(), watch.afterFailures(merged, withoutNode2, 1, addresses),
                "2 of the 3 members merged: the stale list's 2 of 5 must not fence this node");

        leader[0] = true;
        ClusterView aloneAgain = new ClusterView(9, List.of(member("spare1")));
        watch.countQuorum(withoutNode2, aloneAgain, false, false, 1);
        assertEquals(Expelled.Reason.IN_MINORITY_AFTER_FAILURES,
                watch.afterFailures(withoutNode2, aloneAgain, 1, addresses).orElseThrow().reason());
    }

    @Test
    void withALeaderTheVoterListCountsAfterAMerge() {
        // The same merge, but the log names a leader: the list (here 5, two of them present) decides.
        List<String> voters = logIds("node3", "node1", "head", "spare1", "node2");
        ExpulsionWatch watch = new ExpulsionWatch("spare1", () -> voters, () -> true);
        ClusterView alone = cutOff(watch);
        ClusterView merged = new ClusterView(7, List.of(member("spare1"), member("node2"), member("node3")));
        watch.countQuorum(alone, merged, true, false, 0);
        watch.afterMerge(id("spare1"), alone, addresses, List.of(alone, new ClusterView(6, List.of(member("node2"), member("node3")))));
        ClusterView withoutNode2 = new ClusterView(8, List.of(member("spare1"), member("node3")));
        watch.countQuorum(merged, withoutNode2, false, false, 1);
        assertEquals(Expelled.Reason.IN_MINORITY_AFTER_FAILURES,
                watch.afterFailures(merged, withoutNode2, 1, addresses).orElseThrow().reason());
    }

    /** The five in one view, then spare1 cut off alone and expelled: the view it merges back from. */
    private ClusterView cutOff(ExpulsionWatch watch) {
        ClusterView all = new ClusterView(5, List.of(member("spare1"), member("node1"), member("head"), member("node3"), member("node2")));
        watch.countQuorum(ClusterView.NONE, all, false, true, 0);
        watch.met(Set.copyOf(addresses.keySet()));
        ClusterView alone = new ClusterView(6, List.of(member("spare1")));
        watch.countQuorum(all, alone, false, false, 4);
        assertTrue(watch.afterFailures(all, alone, 4, addresses).isPresent(), "alone, spare1 is in the minority");
        return alone;
    }

    private List<String> logIds(String... names) {
        return java.util.Arrays.stream(names).map(n -> RaftLog.idOf(address(n)).orElseThrow()).toList();
    }

    private ExpulsionWatch watchOnLiveSide(List<String> voters) {
        for (String name : List.of("spare1", "node1", "head", "node3", "node2")) {
            member(name);
        }
        ExpulsionWatch watch = new ExpulsionWatch("node2", () -> voters, () -> true);
        // Before the split, all five shared a view.
        watch.met(Set.copyOf(addresses.keySet()));
        return watch;
    }

    private ClusterView liveView() {
        return new ClusterView(6, List.of(member("node3"), member("node2")));
    }

    private WireMessage.ExpelledNotice staleNotice() {
        return new WireMessage.ExpelledNotice(WireMessage.VERSION, 5, id("spare1"), List.of(id("spare1"), id("node1"), id("head")));
    }

    private Member member(String name) {
        return members.computeIfAbsent(name, n -> {
            ExtendedUUID uuid = ExtendedUUID.randomUUID(n).put(RAFT.raft_id_key, Util.stringToBytes(n));
            addresses.put(MetadataCodec.idOf(uuid), uuid);
            return new Member(MetadataCodec.idOf(uuid),
                    new NodeMetadata(n, NodeRole.COMPUTE, 1, InetSocketAddress.createUnresolved(n, 7801)), NodeLoad.UNKNOWN);
        });
    }

    private String id(String name) {
        return member(name).id();
    }

    private Address address(String name) {
        return addresses.get(id(name));
    }
}
