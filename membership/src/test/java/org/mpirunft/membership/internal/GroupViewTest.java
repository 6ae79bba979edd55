package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.View;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.MembershipEvent.NodeLeft;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;

class GroupViewTest {
    private final Address n1 = address("n1");
    private final Address n2 = address("n2");
    private final Address n3 = address("n3");

    @Test
    void aMemberIsSuspectedOncePerView() {
        GroupView group = new GroupView("n1", null);
        group.apply(View.create(n1, 1, n1, n2, n3), n1);
        assertTrue(group.suspect(MetadataCodec.idOf(n2)).isPresent());
        assertTrue(group.suspect(MetadataCodec.idOf(n2)).isEmpty(), "already suspected in this view");
    }

    @Test
    void aMemberThatAnnouncedItsLeaveIsNotReportedAsSuspected() {
        // GracefulLeaveIT once saw a NODE_SUSPECTED for a member whose leave everyone had acknowledged.
        GroupView group = new GroupView("n1", null);
        group.apply(View.create(n1, 1, n1, n2, n3), n1);
        group.leaves(MetadataCodec.idOf(n3));
        assertTrue(group.suspect(MetadataCodec.idOf(n3)).isEmpty());
        GroupView.Change change = group.apply(View.create(n1, 2, n1, n2), n1);
        assertEquals(List.of("n3"), change.diff().events().stream()
                .filter(NodeLeft.class::isInstance).map(e -> ((NodeLeft) e).member().name()).toList(),
                "its removal is its leave");
    }

    private static Address address(String name) {
        return MetadataCodec.newAddress(new NodeMetadata(name, NodeRole.COMPUTE, 1, InetSocketAddress.createUnresolved(name, 7801)));
    }
}
