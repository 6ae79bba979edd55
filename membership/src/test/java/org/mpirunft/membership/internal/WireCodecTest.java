package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireCodecTest {
    @Test
    void everyMessageSurvivesARoundTrip() {
        List<WireMessage> messages = List.of(
                new WireMessage.LoadReport(1, 42, 1.25, 3),
                new WireMessage.LeaveIntent(1, "id-a"),
                new WireMessage.LeaveAck(1, "id-a"),
                new WireMessage.SuspectNotice(1, List.of("id-b", "id-c")),
                new WireMessage.ExpelledNotice(1, 9, "id-a", List.of("id-a", "id-b")));
        for (WireMessage m : messages) {
            assertEquals(m, WireCodec.decode(WireCodec.encode(m), WireMessage.class), "round trip of " + m);
        }
    }

    @Test
    void messagesCarryTheirTypeAndVersion() {
        String json = new String(WireCodec.encode(new WireMessage.LeaveIntent(WireMessage.VERSION, "x")), StandardCharsets.UTF_8);
        assertEquals("{\"type\":\"leave-intent\",\"v\":1,\"memberId\":\"x\"}", json);
    }

    @Test
    void fieldsFromANewerVersionAreIgnored() {
        byte[] newer = "{\"type\":\"load\",\"v\":2,\"seq\":5,\"loadAverage\":0.5,\"slotsInUse\":1,\"gpus\":4}"
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(new WireMessage.LoadReport(2, 5, 0.5, 1), WireCodec.decode(newer, WireMessage.class));
    }

    @Test
    void garbageAndVersionZeroAreRejectedAsMalformed() {
        assertThrows(WireCodec.MalformedMessageException.class,
                () -> WireCodec.decode("not json".getBytes(StandardCharsets.UTF_8), WireMessage.class));
        assertThrows(WireCodec.MalformedMessageException.class,
                () -> WireCodec.decode("{\"type\":\"nope\",\"v\":1}".getBytes(StandardCharsets.UTF_8), WireMessage.class));
        WireCodec.MalformedMessageException e = assertThrows(WireCodec.MalformedMessageException.class,
                () -> WireCodec.decode("{\"type\":\"leave-ack\",\"v\":0,\"memberId\":\"x\"}".getBytes(StandardCharsets.UTF_8),
                        WireMessage.class));
        assertTrue(e.getMessage().contains("version"), e.getMessage());
    }
}
