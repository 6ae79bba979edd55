package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.MembershipEvent.NodeJoined;
import org.mpirunft.membership.MembershipEvent.NodeLeft;
import org.mpirunft.membership.loopback.InJvmGroup;

/**
 * Small groups of members inside this JVM, on loopback: the API as the daemon uses it. The
 * process-level behaviour (kill, stop, partition) is in the *IT tests.
 */
class InProcessGroupTest {
    private static final String SECRET = "in-process-test-secret-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final InJvmGroup group = new InJvmGroup("ipg-", 4, SECRET);

    private final Map<String, List<MembershipEvent>> events = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> slotsInUse = new ConcurrentHashMap<>();

    /** Static discovery of the members on these ports of the group only. */
    private Discovery discovery(int... indexes) {
        return Discovery.staticHosts(Arrays.stream(indexes).mapToObj(i -> new InetSocketAddress("127.0.0.1", group.port(i))).toList());
    }

    private Membership member(String name, NodeRole role, MembershipConfig config) {
        AtomicInteger slots = slotsInUse.computeIfAbsent(name, n -> new AtomicInteger());
        Membership m = Membership.create(config,
                new NodeMetadata(name, role, 4, InetSocketAddress.createUnresolved("127.0.0.1", 9000 + group.members().size())),
                LoadSource.system(slots::get));
        List<MembershipEvent> log = events.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
        m.addListener(log::add);
        return group.add(m);
    }

    private Membership startMember(String name, int index) throws Exception {
        Membership m = member(name, name.startsWith("spare") ? NodeRole.SPARE : NodeRole.COMPUTE, group.config(index).build());
        m.start();
        return m;
    }

    @Test
    void membersSeeEachOthersMetadataAndLoad() throws Exception {
        Membership a = startMember("a", 0);
        Membership b = startMember("b", 1);
        Membership spare = startMember("spare1", 2);
        waitUntil(WAIT, () -> a.view().size() == 3 && b.view().size() == 3 && spare.view().size() == 3,
                () -> "views: " + a.view().names() + " " + b.view().names() + " " + spare.view().names());

        Member seenFromA = a.view().member("spare1").orElseThrow();
        assertEquals(NodeRole.SPARE, seenFromA.role(), "role travels with the member");
        assertEquals(4, seenFromA.metadata().slots());
        assertEquals("127.0.0.1:9002", seenFromA.metadata().controlEndpoint());
        assertEquals(spare.memberId(), seenFromA.id());
        assertEquals("a", a.view().coordinator().orElseThrow().name(), "the first member coordinates");

        slotsInUse.get("b").set(3);
        b.publishLoadNow();
        waitUntil(WAIT, () -> a.view().member("b").orElseThrow().load().slotsInUse() == 3,
                () -> "b's load as seen by a: " + a.view().member("b"));
        assertTrue(a.describeView().contains("spare1"), a.describeView());
    }

    @Test
    void aNewcomerLearnsTheLoadsTheOthersPublishedBeforeItJoined() throws Exception {
        Membership a = startMember("a", 0);
        Membership b = startMember("b", 1);
        slotsInUse.get("b").set(3);
        b.publishLoadNow();
        waitUntil(WAIT, () -> a.view().member("b").map(m -> m.load().slotsInUse() == 3).orElse(false),
                () -> "b's load as seen by a: " + a.view().member("b"));
        // b's load does not change again: c learns it from what b sends the newcomers at the join.
        Membership c = startMember("c", 2);
        waitUntil(WAIT, () -> c.view().member("b").map(m -> m.load().slotsInUse() == 3).orElse(false),
                () -> "b's load as seen by the newcomer c: " + c.view().member("b"));
        assertEquals(3, a.view().member("b").orElseThrow().load().slotsInUse());
    }

    @Test
    void everyMemberGetsTheJoinsInTheSameOrder() throws Exception {
        Membership a = startMember("a", 0);
        startMember("b", 1);
        startMember("c", 2);
        // c's own first view is delivered on its service thread, possibly after a's and b's.
        waitUntil(WAIT, () -> events.get("a").size() == 3 && events.get("b").size() == 3 && events.get("c").size() == 3,
                () -> "events: " + events);
        List<String> joinsAtA = events.get("a").stream().map(e -> ((NodeJoined) e).member().name()).toList();
        assertEquals(List.of("a", "b", "c"), joinsAtA, "a saw itself, then each joiner");
        List<String> joinsAtB = events.get("b").stream().map(e -> ((NodeJoined) e).member().name()).toList();
        assertEquals(List.of("a", "b", "c"), joinsAtB, "b's first view lists a and itself, then c joins");
        assertEquals(a.view().id(), events.get("c").getLast().view().id());
    }

    @Test
    void groupsThatFormedApartAtStartUpMergeWithoutExpellingAnyone() throws Exception {
        // a knows of b, but starts before it and forms a group alone; b and c do not know of a
        // and form their own. a's merge probe then finds b: the two groups never shared a
        // member, so this is no partition and nobody may fence itself.
        Membership a = member("a", NodeRole.COMPUTE, group.config(0).discovery(discovery(0, 1)).build());
        a.start();
        waitUntil(WAIT, () -> a.view().size() == 1, () -> "a's view " + a.view().names());
        member("b", NodeRole.COMPUTE, group.config(1).discovery(discovery(1, 2)).build()).start();
        member("c", NodeRole.COMPUTE, group.config(2).discovery(discovery(1, 2)).build()).start();
        waitUntil(Duration.ofSeconds(60), () -> a.view().size() == 3 && events.get("a").stream()
                        .anyMatch(e -> e instanceof MembershipEvent.PartitionHealed),
                () -> "a's view " + a.view().names() + ", events " + events);
        for (Map.Entry<String, List<MembershipEvent>> e : events.entrySet()) {
            assertTrue(e.getValue().stream().noneMatch(ev -> ev instanceof MembershipEvent.Expelled),
                    e.getKey() + " was never cut off and must not consider itself expelled: " + e.getValue());
        }
    }

    @Test
    void leaveIsReportedAsLeftAndRejoiningGivesANewIncarnation() throws Exception {
        Membership a = startMember("a", 0);
        Membership b = startMember("b", 1);
        waitUntil(WAIT, () -> a.view().size() == 2, () -> "a's view " + a.view().names());
        String firstId = b.memberId();

        b.leave();
        assertEquals(Membership.State.LEFT, b.state());
        assertSame(ClusterView.NONE, b.view());
        waitUntil(WAIT, () -> events.get("a").stream().anyMatch(e -> e instanceof NodeLeft l && l.member().name().equals("b")),
                () -> "a's events " + events.get("a"));
        assertTrue(events.get("a").stream().noneMatch(e -> e instanceof MembershipEvent.NodeFailed),
                "a graceful leave is not a failure: " + events.get("a"));

        b.leave(); // again: nothing happens
        b.start();
        waitUntil(WAIT, () -> a.view().size() == 2, () -> "a's view " + a.view().names());
        assertNotEquals(firstId, b.memberId(), "a new incarnation has a new id");
        assertEquals(b.memberId(), a.view().member("b").orElseThrow().id());
    }

    @Test
    void memberWithTheWrongSecretIsRefusedByAuthWhenEncryptionIsOff() throws Exception {
        Membership a = member("a", NodeRole.COMPUTE, group.config(0).encryption(false).build());
        a.start();
        Membership intruder = member("intruder", NodeRole.COMPUTE,
                group.config(1).clusterSecret("not-the-secret-of-this-cluster").encryption(false).build());
        JoinRefusedException e = assertThrows(JoinRefusedException.class, intruder::start);
        assertTrue(e.getMessage().contains("same cluster secret"), e.getMessage());
        assertEquals(Membership.State.NEW, intruder.state());
        assertEquals(List.of("a"), a.view().names(), "the group is unchanged");
    }

    @Test
    void encryptedGroupWorksAndAMemberWithAnotherSecretCannotJoinIt() throws Exception {
        Membership a = member("a", NodeRole.COMPUTE, group.config(0).build());
        a.start();
        Membership b = member("b", NodeRole.COMPUTE, group.config(1).build());
        b.start();
        waitUntil(WAIT, () -> a.view().size() == 2 && b.view().size() == 2, () -> "views " + a.view().names());

        // Its join requests cannot be decrypted, so they go unanswered; rather than going on as
        // a cluster of its own, the intruder fails to start.
        Membership intruder = member("intruder", NodeRole.COMPUTE,
                group.config(2).clusterSecret("not-the-secret-of-this-cluster").build());
        JoinRefusedException e = assertThrows(JoinRefusedException.class, intruder::start);
        assertTrue(e.getMessage().contains("did not answer") && e.getMessage().contains("encryption setting"), e.getMessage());
        assertEquals(Membership.State.NEW, intruder.state());
        assertEquals(List.of("a", "b"), a.view().names(), "the group is unchanged");
        assertTrue(events.get("a").stream().noneMatch(ev -> ev.view().contains("intruder")));
    }

    @Test
    void aFailingListenerDoesNotStopTheOthers() throws Exception {
        Membership a = member("a", NodeRole.COMPUTE, group.config(0).build());
        a.addListener(e -> {
            throw new IllegalStateException("listener bug");
        });
        List<MembershipEvent> after = new CopyOnWriteArrayList<>();
        a.addListener(after::add);
        a.start();
        startMember("b", 1);
        waitUntil(WAIT, () -> after.size() == 2, () -> "events after the failing listener: " + after);
    }

    @Test
    void lifecycleCallsAreIdempotentAndCloseIsFinal() throws Exception {
        Membership a = startMember("a", 0);
        a.start();
        assertEquals(Membership.State.JOINED, a.state());
        a.close();
        a.close();
        assertEquals(Membership.State.CLOSED, a.state());
        IllegalStateException e = assertThrows(IllegalStateException.class, a::start);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
