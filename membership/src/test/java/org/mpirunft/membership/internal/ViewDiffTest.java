package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;

class ViewDiffTest {
    private static final Member A = member("a");
    private static final Member B = member("b");
    private static final Member C = member("c");
    private static final Member D = member("d");

    private static Member member(String name) {
        return new Member("id-" + name, NodeMetadata.compute(name, 2, InetSocketAddress.createUnresolved(name, 1)), NodeLoad.UNKNOWN);
    }

    private static List<String> describe(ViewDiff.Result r) {
        return r.events().stream().map(e -> switch (e) {
            case MembershipEvent.NodeJoined j -> "joined " + j.member().name();
            case MembershipEvent.NodeFailed f -> "failed " + f.member().name();
            case MembershipEvent.NodeLeft l -> "left " + l.member().name();
            case MembershipEvent.PartitionHealed h -> "healed " + h.subgroups().size();
            default -> e.toString();
        }).toList();
    }

    @Test
    void firstViewReportsEveryMemberAsJoinedInViewOrder() {
        ViewDiff.Result r = ViewDiff.apply(ClusterView.NONE, new ClusterView(4, List.of(B, A, C)), List.of(), Set.of());
        assertEquals(List.of("joined b", "joined a", "joined c"), describe(r));
    }

    @Test
    void removalIsALeaveOnlyIfTheMemberAnnouncedIt() {
        ClusterView before = new ClusterView(1, List.of(A, B, C, D));
        ViewDiff.Result r = ViewDiff.apply(before, new ClusterView(2, List.of(A, D)), List.of(), Set.of("id-c"));
        assertEquals(List.of("left c", "failed b"), describe(r), "leaves first, so that a listener knows them when it acts on a failure");
        assertEquals(List.of(B), r.failed());
    }

    @Test
    void removalsComeBeforeJoinsAndEveryEventCarriesTheNewView() {
        ClusterView before = new ClusterView(1, List.of(A, B));
        ClusterView after = new ClusterView(2, List.of(A, C, D));
        ViewDiff.Result r = ViewDiff.apply(before, after, List.of(), Set.of());
        assertEquals(List.of("failed b", "joined c", "joined d"), describe(r));
        r.events().forEach(e -> assertEquals(after, e.view(), "view of " + e));
        assertEquals(List.of(C, D), r.joined());
    }

    @Test
    void mergeIsReportedFirstThenTheMembersNewToThisSide() {
        ClusterView before = new ClusterView(5, List.of(A, B));
        ClusterView merged = new ClusterView(7, List.of(A, B, C, D));
        ViewDiff.Result r = ViewDiff.apply(before, merged, List.of(List.of(A, B), List.of(C, D)), Set.of());
        assertEquals(List.of("healed 2", "joined c", "joined d"), describe(r));
    }

    @Test
    void sameInputsGiveTheSameEventsWhereverTheyAreComputed() {
        ClusterView before = new ClusterView(1, List.of(A, B, C));
        ClusterView after = new ClusterView(2, List.of(A, D));
        assertEquals(ViewDiff.apply(before, after, List.of(), Set.of("id-b")).events(),
                ViewDiff.apply(before, after, List.of(), Set.of("id-b")).events());
    }
}
