package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlReply;

class HostPlannerTest {
    private static List<HostSlot> hosts(String spec) {
        return HostPlanner.parseHostOption(List.of(spec));
    }

    @Test
    void hostsBeyondThoseTheRanksFillBecomeTheSpares() {
        HostPlan plan = HostPlanner.plan(hosts("node1:1,node2:1,node3:1,spare1"), Optional.of(3), 1, true,
                HostPlan.Mapping.BY_SLOT, List.of());
        assertEquals(List.of("node1", "node2", "node3"), plan.rankNodes());
        assertEquals(List.of("spare1"), plan.spareNames());
        assertEquals("node1:1,node2:1,node3:1,spare1:1", plan.hostArgument());
    }

    @Test
    void sparesComeFromTheDaemonsViewLeastLoadedFirst() {
        List<ControlReply.MemberStatus> view = List.of(
                FakeDaemon.member("node1", "COMPUTE", 2), FakeDaemon.member("node2", "COMPUTE", 2),
                new ControlReply.MemberStatus("spare1", "SPARE", 4, 0, 0.9, "", ""),
                new ControlReply.MemberStatus("spare2", "SPARE", 4, 0, 0.1, "", ""),
                new ControlReply.MemberStatus("spare3", "SPARE", 1, 1, 0.0, "", ""));
        HostPlan plan = HostPlanner.plan(List.of(), Optional.empty(), 1, true, HostPlan.Mapping.BY_SLOT, view);
        assertEquals(List.of("node1", "node1", "node2", "node2"), plan.rankNodes(), "every compute slot without -np");
        assertEquals(List.of(new HostSlot("spare2", 2)), plan.spares(),
                "least loaded spare with a free slot, sized to take a whole compute node's ranks");
    }

    @Test
    void tooFewSparesIsAnErrorOnlyWhenTheUserAskedForThem() {
        List<HostSlot> two = hosts("node1,node2");
        NoSpareLeftException e = assertThrows(NoSpareLeftException.class,
                () -> HostPlanner.plan(two, Optional.of(2), 2, true, HostPlan.Mapping.BY_SLOT, List.of()));
        assertTrue(e.getMessage().startsWith("no spare left for --spares 2"), e.getMessage());
        HostPlan plan = HostPlanner.plan(two, Optional.of(2), 1, false, HostPlan.Mapping.BY_SLOT, List.of());
        assertEquals(List.of(), plan.spares());
    }

    @Test
    void mapByNodePlacesRanksRoundRobin() {
        HostPlan plan = HostPlanner.plan(hosts("a:2,b:2"), Optional.of(4), 0, true,
                HostPlanner.mappingOf(Optional.of("node")), List.of());
        assertEquals(List.of("a", "b", "a", "b"), plan.rankNodes());
        assertEquals(HostPlan.Mapping.BY_SLOT, HostPlanner.mappingOf(Optional.of("ppr:1:package")));
    }

    @Test
    void aHostListedAgainAddsSlotsAsInOpenMpi() {
        assertEquals(List.of(new HostSlot("a", 3), new HostSlot("b", 1)), HostPlanner.parseHostOption(List.of("a,b", "a:2")));
        assertThrows(BadSettingException.class, () -> hosts("a:0"));
        assertThrows(BadSettingException.class, () -> hosts("a:x"));
    }

    @Test
    void readsAnOpenMpiHostfile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("hosts");
        Files.writeString(file, "# cluster\nnode1 slots=2 max_slots=4\nnode2   # one slot\n\nspare1 slots=2\n");
        assertEquals(List.of(new HostSlot("node1", 2), new HostSlot("node2", 1), new HostSlot("spare1", 2)),
                HostPlanner.readHostfile(file));
        assertThrows(BadSettingException.class, () -> HostPlanner.readHostfile(dir.resolve("missing")));
    }

    @Test
    void moreRanksThanSlotsIsAUsageError() {
        BadSettingException e = assertThrows(BadSettingException.class,
                () -> HostPlanner.plan(hosts("a,b"), Optional.of(3), 0, true, HostPlan.Mapping.BY_SLOT, List.of()));
        assertEquals("-np", e.setting());
    }

    @Test
    void replacingAFailedNodeKeepsItsPlaceAndSlots() {
        HostPlan plan = HostPlanner.plan(hosts("n1:2,n2:2,n3:2,s1:2,s2:2"), Optional.of(6), 2, true, HostPlan.Mapping.BY_SLOT, List.of());
        HostPlan replaced = plan.replace(Map.of("n2", "s1"));
        assertEquals(List.of("n1", "n1", "s1", "s1", "n3", "n3"), replaced.rankNodes());
        assertEquals(List.of("s2"), replaced.spareNames());
    }

    @Test
    void aPlanFromARankTableKeepsEachNodesRankCount() {
        HostPlan plan = HostPlan.fromRankTable(List.of("n1", "s1", "n3"), List.of(new HostSlot("s1", 1), new HostSlot("s2", 1)));
        assertEquals(List.of("n1", "s1", "n3"), plan.rankNodes());
        assertEquals(List.of("s2"), plan.spareNames(), "a spare that runs a rank is no longer a spare");
    }
}
