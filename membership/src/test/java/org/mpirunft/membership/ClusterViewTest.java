package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterViewTest {
    private static Member member(String name, NodeRole role, NodeLoad load) {
        return new Member("id-" + name, new NodeMetadata(name, role, 4, InetSocketAddress.createUnresolved("10.0.0.1", 7100)), load);
    }

    @Test
    void rendersOneLinePerMemberCoordinatorFirst() {
        ClusterView view = new ClusterView(7, List.of(
                member("node1", NodeRole.COMPUTE, new NodeLoad(0.5, 2)),
                member("spare1", NodeRole.SPARE, NodeLoad.UNKNOWN)));
        String text = view.render();
        String[] lines = text.split("\n");
        assertEquals("view 7: 2 members, coordinator node1", lines[0], text);
        assertTrue(lines[1].contains("NAME") && lines[1].contains("CONTROL"), "header: " + lines[1]);
        assertTrue(lines[2].matches("\\s+node1\\s+compute\\s+4\\s+2\\s+0\\.50\\s+10\\.0\\.0\\.1:7100"), "member line: " + lines[2]);
        assertTrue(lines[3].matches("\\s+spare1\\s+spare\\s+4\\s+-\\s+-\\s+10\\.0\\.0\\.1:7100"), "unknown load shows '-': " + lines[3]);
    }

    @Test
    void emptyViewSaysNotJoined() {
        assertEquals("no view (not joined)\n", ClusterView.NONE.render());
        assertTrue(ClusterView.NONE.coordinator().isEmpty());
    }

    @Test
    void findsMembersByNameAndId() {
        ClusterView view = new ClusterView(1, List.of(member("a", NodeRole.COMPUTE, NodeLoad.UNKNOWN)));
        assertTrue(view.contains("a"));
        assertEquals("a", view.memberById("id-a").orElseThrow().name());
        assertEquals(List.of("a"), view.names());
    }

    @Test
    void metadataRejectsNamesThatAreNotHostNameLike() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new NodeMetadata("bad name", NodeRole.COMPUTE, 1, InetSocketAddress.createUnresolved("h", 1)));
        assertTrue(e.getMessage().startsWith("name: must be"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new NodeMetadata("ok", NodeRole.COMPUTE, -1, InetSocketAddress.createUnresolved("h", 1)));
        assertThrows(IllegalArgumentException.class, () -> new NodeLoad(Double.NaN, 0));
        assertThrows(IllegalArgumentException.class, () -> new NodeLoad(1, -1));
    }
}
