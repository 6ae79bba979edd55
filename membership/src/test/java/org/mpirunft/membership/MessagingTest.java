package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.loopback.InJvmGroup;

/** The application messaging API over a small in-JVM group on loopback. */
class MessagingTest {
    private static final String SECRET = "messaging-test-secret-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** What each member received, as "sender:text", in delivery order. */
    private final Map<String, List<String>> received = new ConcurrentHashMap<>();
    @RegisterExtension
    final InJvmGroup group = new InJvmGroup("msg-", 3, SECRET);

    @Test
    void broadcastsReachEveryMemberTheSenderIncludedInEachSendersOrder() throws Exception {
        Membership a = start("a", 0);
        Membership b = start("b", 1);
        Membership c = start("c", 2);
        waitUntil(WAIT, () -> a.view().size() == 3 && b.view().size() == 3 && c.view().size() == 3,
                () -> "views " + a.view().names() + " " + b.view().names() + " " + c.view().names());
        int count = 200;
        // Two senders at once, so the test also sees that different senders interleave freely.
        Thread other = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < count; i++) {
                b.broadcast(text(Integer.toString(i)));
            }
        });
        for (int i = 0; i < count; i++) {
            assertTrue(a.broadcast(text(Integer.toString(i))), "a is joined, so the broadcast goes out");
        }
        other.join();
        for (String member : List.of("a", "b", "c")) {
            waitUntil(WAIT, () -> received.get(member).size() == 2 * count,
                    () -> member + " received " + received.get(member).size() + " of " + 2 * count);
            for (String sender : List.of("a", "b")) {
                List<String> fromSender = received.get(member).stream().filter(m -> m.startsWith(sender + ":"))
                        .map(m -> m.substring(2)).toList();
                List<String> expected = java.util.stream.IntStream.range(0, count).mapToObj(Integer::toString).toList();
                assertEquals(expected, fromSender, member + " got " + sender + "'s broadcasts in sending order");
            }
        }
    }

    @Test
    void sendReachesOnlyTheNamedMember() throws Exception {
        Membership a = start("a", 0);
        Membership b = start("b", 1);
        start("c", 2);
        waitUntil(WAIT, () -> a.view().size() == 3 && b.view().size() == 3, () -> "views " + a.view().names());
        for (int i = 0; i < 50; i++) {
            assertTrue(a.send("b", text("to-b-" + i)), "b is in the view");
        }
        assertTrue(a.send("a", text("to-self")), "a member may send to itself");
        waitUntil(WAIT, () -> received.get("b").size() == 50 && received.get("a").size() == 1,
                () -> "b received " + received.get("b") + ", a received " + received.get("a"));
        assertEquals(java.util.stream.IntStream.range(0, 50).mapToObj(i -> "a:to-b-" + i).toList(), received.get("b"),
                "in sending order");
        assertEquals(List.of("a:to-self"), received.get("a"));
        // A marker broadcast that c receives shows c has been delivered to; the sends never go there.
        a.broadcast(text("marker"));
        waitUntil(WAIT, () -> received.get("c").contains("a:marker"), () -> "c received " + received.get("c"));
        assertEquals(List.of("a:marker"), received.get("c"), "c received none of the sends to b");
    }

    @Test
    void nothingIsSentWhenNotJoinedOrToANodeNotInTheView() throws Exception {
        Membership a = member("a", 0);
        assertFalse(a.broadcast(text("early")), "not joined yet");
        assertFalse(a.send("a", text("early")), "not joined yet");
        a.start();
        assertFalse(a.send("nobody", text("lost")), "no member of that name");
        a.close();
        assertFalse(a.broadcast(text("late")), "closed");
        assertTrue(received.get("a").isEmpty(), "nothing was delivered: " + received.get("a"));
    }

    private Membership start(String name, int index) throws Exception {
        Membership m = member(name, index);
        m.start();
        return m;
    }

    private Membership member(String name, int index) throws Exception {
        Membership m = Membership.create(group.config(index).build(),
                NodeMetadata.compute(name, 1, InetSocketAddress.createUnresolved("127.0.0.1", 9000)));
        List<String> log = received.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
        m.addMessageListener((sender, payload) -> log.add(sender + ":" + new String(payload, StandardCharsets.UTF_8)));
        return group.add(m);
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
