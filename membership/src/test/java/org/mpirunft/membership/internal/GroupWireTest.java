package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jgroups.Message;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.NakAckHeader2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.membership.loopback.InJvmGroup;

/**
 * What the group puts on the network, seen from a {@link WireTap} right above the transport
 * (below SYM_ENCRYPT) of members on 127.0.0.1: with the default config a job's name does not
 * appear in clear, and a captured application message sent again is not delivered twice.
 */
class GroupWireTest {
    private static final String SECRET = "wire-test-secret-0123456789abcdef";
    private static final String JOB = "zebra-climate-run-4711";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String ORDER = "order 1 for " + JOB;
    private static final String MARKER = "marker";

    @RegisterExtension
    final InJvmGroup loopback = new InJvmGroup("wire-", 3, SECRET);

    private final Map<String, List<String>> received = new ConcurrentHashMap<>();

    /** Starts members n1..nN with {@code configure} applied, and waits for one view of all. */
    private List<Membership> group(int size, java.util.function.UnaryOperator<MembershipConfig.Builder> configure) throws Exception {
        List<Membership> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String name = "n" + (i + 1);
            Membership m = Membership.create(configure.apply(loopback.config(i)).build(),
                    new NodeMetadata(name, NodeRole.COMPUTE, 1, InetSocketAddress.createUnresolved("127.0.0.1", 9000 + i)),
                    LoadSource.system(() -> 0));
            List<String> payloads = received.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
            m.addMessageListener((sender, bytes) -> payloads.add(new String(bytes, StandardCharsets.UTF_8)));
            loopback.add(m);
            m.start();
            members.add(m);
        }
        waitUntil(WAIT, () -> members.stream().allMatch(m -> m.view().size() == size), () -> "views " + members.getFirst().view());
        return members;
    }

    @Test
    void aJobsNameIsNotInClearOnTheWireWithTheDefaults() throws Exception {
        List<Membership> members = group(3, b -> b);
        List<byte[]> sent = broadcastJobAndCapture(members);
        assertFalse(contains(sent, JOB), "the job's name must not be readable in what n1 sent (" + sent.size() + " messages)");
    }

    /** The negative check of the test above: the capture does see the name when nothing hides it. */
    @Test
    void aJobsNameIsInClearOnTheWireWhenEncryptionIsTurnedOff() throws Exception {
        List<Membership> members = group(3, b -> b.encryption(false));
        assertTrue(contains(broadcastJobAndCapture(members), JOB), "without encryption the capture shows the name");
    }

    private List<byte[]> broadcastJobAndCapture(List<Membership> members) throws Exception {
        WireTap tap = WireTap.insertInto(members.getFirst());
        String order = "{\"type\":\"launch\",\"job\":\"" + JOB + "\",\"ranks\":4}";
        assertTrue(members.getFirst().broadcast(order.getBytes(StandardCharsets.UTF_8)));
        waitUntil(WAIT, () -> received.get("n2").contains(order) && received.get("n3").contains(order), () -> "received " + received);
        assertFalse(tap.sent().isEmpty(), "the tap saw the broadcast go out");
        return tap.sent();
    }

    @Test
    void aCapturedBroadcastSentAgainIsNotDeliveredAgain() throws Exception {
        List<Membership> members = group(2, b -> b);
        Membership sender = members.getFirst();
        List<Message> captured = capture(members, () -> sender.broadcast(ORDER.getBytes(StandardCharsets.UTF_8)));
        captured.forEach(this::replayTwice);
        assertDeliveredOnce(() -> sender.broadcast(MARKER.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aCapturedUnicastSentAgainIsNotDeliveredAgain() throws Exception {
        List<Membership> members = group(2, b -> b);
        Membership sender = members.getFirst();
        List<Message> captured = capture(members, () -> sender.send("n2", ORDER.getBytes(StandardCharsets.UTF_8)));
        captured.forEach(this::replayTwice);
        assertDeliveredOnce(() -> sender.send("n2", MARKER.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * SYM_ENCRYPT alone leaves the headers in clear and unauthenticated: a replayer who gave a
     * captured broadcast the next sequence number had it delivered again (the stack without
     * SERIALIZE). With SERIALIZE no sequence number is in clear, and an edited ciphertext fails
     * ChaCha20-Poly1305's check.
     */
    @Test
    void aCapturedBroadcastWithAnEditedSequenceNumberOrCiphertextIsNotDelivered() throws Exception {
        List<Membership> members = group(2, b -> b);
        Membership sender = members.getFirst();
        List<Message> captured = capture(members, () -> sender.broadcast(ORDER.getBytes(StandardCharsets.UTF_8)));
        short nakack = MembershipImpl.of(members.get(1)).channel().getProtocolStack().findProtocol(NAKACK2.class).getId();
        int seqnosInClear = 0;
        for (Message message : captured) {
            Message edited = message.copy(true, true);
            if (edited.getHeader(nakack) instanceof NakAckHeader2 header && header.getType() == NakAckHeader2.MSG) {
                edited.putHeader(nakack, NakAckHeader2.createMessageHeader(header.getSeqno() + 1));
                seqnosInClear++;
            } else if (edited.getLength() > 0) {
                byte[] flipped = java.util.Arrays.copyOfRange(edited.getArray(), edited.getOffset(), edited.getOffset() + edited.getLength());
                flipped[flipped.length / 2] ^= 0x01;
                edited.setArray(flipped);
            }
            tap.replay(edited);
        }
        assertDeliveredOnce(() -> sender.broadcast(MARKER.getBytes(StandardCharsets.UTF_8)));
        assertEquals(0, seqnosInClear, "no captured message may show NAKACK2's sequence number in clear");
    }

    private WireTap tap;

    /** What n2 received from n1, below decryption, while {@code send} ran and until n2 delivered it. */
    private List<Message> capture(List<Membership> members, java.util.function.BooleanSupplier send) throws Exception {
        tap = WireTap.insertInto(members.get(1));
        org.jgroups.Address sender = MembershipImpl.of(members.getFirst()).channel().getAddress();
        tap.clear();
        assertTrue(send.getAsBoolean());
        waitUntil(WAIT, () -> received.get("n2").size() == 1, () -> "delivered " + received.get("n2"));
        List<Message> captured = tap.received().stream().filter(m -> sender.equals(m.getSrc())).toList();
        assertFalse(captured.isEmpty(), "captured what n1 sent");
        // Captured below SYM_ENCRYPT: what is replayed is ciphertext, not the order.
        for (Message m : captured) {
            assertFalse(m.getLength() > 0 && new String(m.getArray(), m.getOffset(), m.getLength(), StandardCharsets.ISO_8859_1)
                    .contains(JOB), "captured below decryption: " + m);
        }
        return captured;
    }

    private void replayTwice(Message captured) {
        tap.replay(captured);
        tap.replay(captured);
    }

    /** Messages of one sender are delivered in order: once the marker is in, a replay that got through would be too. */
    private void assertDeliveredOnce(java.util.function.BooleanSupplier sendMarker) throws Exception {
        assertTrue(sendMarker.getAsBoolean());
        waitUntil(WAIT, () -> received.get("n2").contains(MARKER), () -> "received " + received.get("n2"));
        assertEquals(List.of(ORDER, MARKER), received.get("n2"), "the order once, then the marker");
    }

    private static boolean contains(List<byte[]> messages, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        return messages.stream().anyMatch(m -> indexOf(m, needle) >= 0);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
