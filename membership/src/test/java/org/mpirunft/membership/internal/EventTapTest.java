package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EventTapTest {
    private final StubProtocols.Capture gms = new StubProtocols.Capture();
    private final StubProtocols.Capture below = new StubProtocols.Capture();
    private final EventTap tap = new EventTap();
    /** What the service saw and what GMS saw, in one timeline. */
    private final List<String> timeline = new ArrayList<>();

    @BeforeEach
    void wire() {
        StubProtocols.stack(gms, tap, below);
        tap.setHandler(new EventTap.Handler() {
            @Override
            public void onVerifiedSuspicion(List<Address> suspects) {
                timeline.add("service: suspect " + suspects.size() + ", gms has seen " + gms.up.size());
            }

            @Override
            public void onTapMessage(Address sender, byte[] payload, int offset, int length) {
                timeline.add("service: " + new String(payload, offset, length, StandardCharsets.UTF_8));
            }
        });
    }

    @Test
    void serviceSeesAVerifiedSuspicionBeforeGmsDoes() {
        Event suspect = new Event(Event.SUSPECT, List.of(UUID.randomUUID()));
        tap.up(suspect);
        assertEquals(List.of("service: suspect 1, gms has seen 0"), timeline);
        assertSame(suspect, gms.up.getFirst(), "the SUSPECT event still reaches GMS");
    }

    @Test
    void tapMessagesStopAtTheTapAndOthersGoOnToGms() {
        Message ours = new BytesMessage(null, "notice".getBytes(StandardCharsets.UTF_8)).putHeader(tap.getId(), new EventTap.TapHeader());
        Message view = new BytesMessage(null, "view".getBytes(StandardCharsets.UTF_8));
        assertNull(tap.up(ours));
        tap.up(view);
        assertEquals(List.of("service: notice"), timeline);
        assertEquals(List.of(view), gms.up);
    }

    @Test
    void batchKeepsTheOrderOfNoticesAndOtherMessages() {
        Address sender = UUID.randomUUID();
        Message view1 = new BytesMessage(null, "view1".getBytes(StandardCharsets.UTF_8)).setSrc(sender);
        Message notice = new BytesMessage(null, "notice".getBytes(StandardCharsets.UTF_8)).setSrc(sender)
                .putHeader(tap.getId(), new EventTap.TapHeader());
        Message view2 = new BytesMessage(null, "view2".getBytes(StandardCharsets.UTF_8)).setSrc(sender);
        tap.setHandler(new EventTap.Handler() {
            @Override
            public void onVerifiedSuspicion(List<Address> suspects) {
            }

            @Override
            public void onTapMessage(Address s, byte[] payload, int offset, int length) {
                timeline.add("notice after " + gms.up.size() + " message(s)");
            }
        });
        tap.up(new MessageBatch(null, sender, null, true, List.of(view1, notice, view2)));
        assertEquals(List.of("notice after 1 message(s)"), timeline, "the notice sits between the two views");
        assertEquals(List.of(view1, view2), gms.up);
    }

    @Test
    void multicastGoesDownWithTheTapHeaderAndNotToSelf() {
        tap.multicast("x".getBytes(StandardCharsets.UTF_8));
        Message sent = below.down.getFirst();
        assertNull(sent.getDest(), "to the group");
        assertEquals(EventTap.TapHeader.class, sent.getHeader(tap.getId()).getClass());
        assertEquals(true, sent.isFlagSet(Message.TransientFlag.DONT_LOOPBACK));
    }
}
