package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.EmptyMessage;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ExpulsionProbeTest {
    private final StubProtocols.Capture above = new StubProtocols.Capture();
    private final StubProtocols.Capture transport = new StubProtocols.Capture();
    private final ExpulsionProbe probe = new ExpulsionProbe();
    private final Address coordinator = UUID.randomUUID();
    private final Address member = UUID.randomUUID();
    private final Address stopped = UUID.randomUUID();
    private final List<WireMessage.ExpelledNotice> received = new ArrayList<>();

    @BeforeEach
    void wire() {
        StubProtocols.stack(above, probe, transport);
        probe.setHandler((sender, payload, offset, length) ->
                received.add(WireCodec.decode(payload, offset, length, WireMessage.ExpelledNotice.class)));
        probe.setNoticeInterval(60_000);
    }

    private void install(Address self) {
        probe.setAddress(self);
        probe.down(new Event(Event.VIEW_CHANGE, View.create(coordinator, 4, coordinator, member)));
    }

    private static Message heartbeatFrom(Address sender) {
        return new EmptyMessage(null).setSrc(sender);
    }

    @Test
    void coordinatorTellsAFormerMemberOnceThatItWasRemoved() {
        install(coordinator);
        probe.markFailed(stopped);
        probe.up(heartbeatFrom(stopped));
        probe.up(heartbeatFrom(stopped));
        assertEquals(1, transport.down.size(), "one notice per interval");
        Message notice = transport.down.getFirst();
        assertEquals(stopped, notice.getDest());
        assertEquals(2, above.up.size(), "the former member's messages still go up (JGroups drops them itself)");

        // The stopped member's probe hands the notice to its service and keeps it from going up.
        ExpulsionProbe other = new ExpulsionProbe();
        StubProtocols.Capture otherAbove = new StubProtocols.Capture();
        StubProtocols.stack(otherAbove, other, new StubProtocols.Capture());
        other.setHandler((sender, payload, offset, length) ->
                received.add(WireCodec.decode(payload, offset, length, WireMessage.ExpelledNotice.class)));
        other.up(notice.setSrc(coordinator));
        assertEquals(1, received.size());
        assertEquals(List.of(MetadataCodec.idOf(coordinator), MetadataCodec.idOf(member)), received.getFirst().memberIds());
        assertTrue(otherAbove.up.isEmpty(), "the notice stops at the probe");
    }

    @Test
    void nobodyElseGetsANotice() {
        install(coordinator);
        probe.up(heartbeatFrom(UUID.randomUUID())); // never a member: a joiner, say
        probe.up(heartbeatFrom(member));            // a member
        assertTrue(transport.down.isEmpty(), "only former members removed as failed are told");
    }

    @Test
    void onlyTheCoordinatorAnswers() {
        install(member);
        probe.markFailed(stopped);
        probe.up(heartbeatFrom(stopped));
        assertTrue(transport.down.isEmpty(), "a participant leaves it to the coordinator");
    }

    @Test
    void memberThatCameBackThroughAMergeIsForgotten() {
        install(coordinator);
        probe.markFailed(stopped);
        probe.forget(stopped);
        probe.up(heartbeatFrom(stopped));
        assertTrue(transport.down.isEmpty());
    }

    @Test
    void anExpelledCoordinatorTellsNobodyUntilItIsMergedBack() {
        // A cut-off node alone in its view is its own coordinator; once expelled, its view is no
        // evidence against the members it lost, who may already have merged it back.
        install(coordinator);
        probe.markFailed(stopped);
        probe.setSilenced(true);
        probe.up(heartbeatFrom(stopped));
        assertTrue(transport.down.isEmpty(), "a silenced probe sends no notice");
        probe.setSilenced(false);
        probe.up(heartbeatFrom(stopped));
        assertEquals(1, transport.down.size(), "once a member again, it answers");
    }
}
