package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpirunft.membership.Await.waitUntil;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.membership.internal.GroupProbes;
import org.mpirunft.membership.internal.PartitionSimulator;
import org.mpirunft.membership.loopback.FreePorts;

/**
 * The group's replicated log with real members in this JVM on loopback: who applies what, and
 * what a leader cut off with a minority can still get applied (nothing).
 */
class ReplicatedLogIT {
    private static final String SECRET = "replicated-log-test-secret-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path logs;
    private List<Integer> ports;
    private String cluster;
    private final Map<String, Node> nodes = new LinkedHashMap<>();

    /** A member and the entries its machine applied, in order. */
    private record Node(String name, Membership membership, List<String> applied, List<String> replayed) {
        ReplicatedLog log() {
            return membership.replicatedLog();
        }
    }

    @BeforeEach
    void pickPorts() {
        ports = FreePorts.allocate(6, 100);
        cluster = "rlog-" + ports.getFirst();
    }

    /** Bounded: a member deadlocked by a defect must fail its test, not hang the run. */
    @AfterEach
    void closeAll() throws InterruptedException {
        Thread closer = Thread.ofPlatform().daemon().start(() -> nodes.values().forEach(n -> n.membership().close()));
        closer.join(Duration.ofSeconds(30));
    }

    /** Starts the first three members and returns their leader once all three are the log's voters. */
    private Node startThreeVoters() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        Node leader = awaitLeader(nodes.values());
        waitUntil(WAIT, () -> leader.log().voters().size() == 3, () -> "three voters: " + describe(nodes.values()));
        return leader;
    }

    private Node start(int index) {
        String name = "n" + index;
        MembershipConfig config = MembershipConfig.builder(MembershipConfig.Profile.FAST)
                .clusterName(cluster)
                .bindAddress(InetAddress.getLoopbackAddress())
                .bindPort(ports.get(index))
                // The first five ports are the node list: five voters; a sixth member is a learner.
                .discovery(Discovery.staticHosts(ports.subList(0, 5).stream().map(p -> new InetSocketAddress("127.0.0.1", p)).toList()))
                .clusterSecret(SECRET)
                .logDirectory(logs.resolve(name))
                .build();
        Membership membership = Membership.create(config, new NodeMetadata(name, NodeRole.COMPUTE, 1,
                new InetSocketAddress("127.0.0.1", 9000 + index)));
        List<String> applied = new CopyOnWriteArrayList<>();
        List<String> replayed = new CopyOnWriteArrayList<>();
        membership.replicatedLog().attach(new ReplicatedLog.Machine() {
            @Override
            public void reset() {
                applied.clear();
            }

            @Override
            public void apply(byte[] entry, boolean fromOwnLog) {
                String text = new String(entry, StandardCharsets.UTF_8);
                applied.add(text);
                if (fromOwnLog) {
                    replayed.add(text);
                }
            }

            @Override
            public byte[] snapshot() {
                return String.join("\n", applied).getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public void install(byte[] snapshot) {
                applied.clear();
                String text = new String(snapshot, StandardCharsets.UTF_8);
                if (!text.isEmpty()) {
                    applied.addAll(List.of(text.split("\n")));
                }
            }
        });
        membership.start();
        Node node = new Node(name, membership, applied, replayed);
        nodes.put(name, node);
        return node;
    }

    private Node awaitLeader(Collection<Node> among) throws InterruptedException {
        waitUntil(WAIT, () -> among.stream().filter(n -> n.log().isLeader()).count() == 1
                && among.stream().allMatch(n -> n.log().leader().isPresent()
                && n.log().leader().equals(among.stream().filter(m -> m.log().isLeader()).findFirst().map(Node::name))),
                () -> "one leader among " + names(among) + ", all agreeing: " + describe(among));
        return among.stream().filter(n -> n.log().isLeader()).findFirst().orElseThrow();
    }

    private static void append(Node leader, String entry) throws Exception {
        leader.log().append(entry.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
    }

    private static String names(Collection<Node> nodes) {
        return nodes.stream().map(Node::name).collect(Collectors.joining(",", "[", "]"));
    }

    private static String describe(Collection<Node> nodes) {
        return nodes.stream().map(n -> n.name() + "{leader=" + n.log().leader().orElse("-") + " term=" + n.log().term()
                + " voters=" + n.log().voters() + " applied=" + n.applied() + "}").collect(Collectors.joining("; "));
    }

    @Test
    void everyMemberLearnersIncludedAppliesTheCommittedEntriesInOneOrder() throws Exception {
        for (int i = 0; i < 6; i++) {
            start(i);
        }
        Node leader = awaitLeader(nodes.values());
        // The leader adds voters one change at a time, after it is elected: wait for the fifth.
        waitUntil(WAIT, () -> leader.log().voters().size() == 5, () -> "five voters of six members: " + describe(nodes.values()));
        for (int i = 0; i < 20; i++) {
            append(leader, "e" + i);
        }
        List<String> expected = java.util.stream.IntStream.range(0, 20).mapToObj(i -> "e" + i).toList();
        waitUntil(WAIT, () -> nodes.values().stream().allMatch(n -> n.applied().equals(expected)),
                () -> "every member applies e0..e19 in order: " + describe(nodes.values()));
        String learner = MembershipConfig.logId(new InetSocketAddress("127.0.0.1", ports.get(5)));
        assertFalse(leader.log().voters().contains(learner), "the member off the node list is a learner: " + leader.log().voters());
    }

    @Test
    void aLeaderCutOffWithAMinorityGetsNothingAppliedAndTheMajorityGoesOnAndReplacesLostVoters() throws Exception {
        for (int i = 0; i < 5; i++) {
            start(i);
        }
        Node oldLeader = awaitLeader(nodes.values());
        append(oldLeader, "before");
        Node companion = nodes.values().stream().filter(n -> n != oldLeader).findFirst().orElseThrow();
        List<Node> minority = List.of(oldLeader, companion);
        List<Node> majority = nodes.values().stream().filter(n -> !minority.contains(n)).toList();
        waitUntil(WAIT, () -> nodes.values().stream().allMatch(n -> n.applied().equals(List.of("before"))),
                () -> "all apply 'before': " + describe(nodes.values()));

        for (Node n : minority) {
            PartitionSimulator.of(n.membership()).isolateFrom(majority.stream().map(Node::name).toList());
        }
        for (Node n : majority) {
            PartitionSimulator.of(n.membership()).isolateFrom(minority.stream().map(Node::name).toList());
        }
        // At once, the old leader still believes it leads: what it appends now must never be applied.
        CompletableFuture<Void> minorityEntry = oldLeader.log().append("minority-order".getBytes(StandardCharsets.UTF_8));

        Node newLeader = awaitLeader(majority);
        // The new leader removes the two voters it cannot reach, so that losing one more leaves a majority.
        waitUntil(WAIT, () -> newLeader.log().voters().size() == 3, () -> "the majority's voters shrink to its 3: " + describe(majority));
        append(newLeader, "majority-1");
        Node lost = majority.stream().filter(n -> n != newLeader).findFirst().orElseThrow();
        lost.membership().close();
        nodes.remove(lost.name());
        append(newLeader, "majority-2");

        assertTrue(minorityEntry.handle((ok, failure) -> failure != null).get(30, TimeUnit.SECONDS),
                "the cut-off leader's entry fails, it never commits");
        assertFalse(oldLeader.log().isLeader(), "the cut-off leader stepped down: " + describe(minority));

        for (Node n : nodes.values()) {
            PartitionSimulator.of(n.membership()).heal();
        }
        List<Node> survivors = List.copyOf(nodes.values());
        waitUntil(Duration.ofSeconds(60), () -> {
            List<String> first = survivors.getFirst().applied();
            return first.equals(List.of("before", "majority-1", "majority-2"))
                    && survivors.stream().allMatch(n -> n.applied().equals(first));
        }, () -> "one log after the heal, without the minority's entry: " + describe(survivors));
        Node healedLeader = awaitLeader(survivors);
        append(healedLeader, "after-heal");
        waitUntil(WAIT, () -> survivors.stream().allMatch(n -> n.applied().equals(List.of("before", "majority-1", "majority-2", "after-heal"))),
                () -> "all apply the healed leader's entry: " + describe(survivors));
        // The voters are topped up again from the members in the view.
        waitUntil(WAIT, () -> healedLeader.log().voters().size() == 4, () -> "four members, four voters: " + describe(survivors));
    }

    /**
     * A chain of decisions in which each waits for a follower to apply the last one (a
     * checkpoint's staggered flush: a node's turn, its ranks' write, the next turn) must not
     * wait for the leader's resend at every step: the follower applies a committed entry at
     * once. Measured as the time from the leader's commit to the follower's apply, summed over
     * the chain; with RAFT's default the follower learns each commit only after the leader's
     * queue was idle for resend_interval, so every step costs at least that.
     */
    @Test
    void aFollowerAppliesACommittedEntryWithoutWaitingForTheLeadersResend() throws Exception {
        Node leader = startThreeVoters();
        Node follower = nodes.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
        int steps = 20;
        long lagNanos = 0;
        for (int i = 0; i < steps; i++) {
            String entry = "step" + i;
            append(leader, entry);
            long committed = System.nanoTime();
            waitUntil(WAIT, () -> follower.applied().contains(entry), () -> follower.name() + " applies " + entry + ": "
                    + describe(nodes.values()));
            lagNanos += System.nanoTime() - committed;
        }
        Duration resend = MembershipConfig.Profile.FAST.retransmitInterval;
        Duration lag = Duration.ofNanos(lagNanos);
        System.out.printf("a follower's apply after the leader's commit: %d ms over %d steps (resend interval %d ms)%n",
                lag.toMillis(), steps, resend.toMillis());
        assertTrue(lag.compareTo(resend.multipliedBy(steps).dividedBy(2)) < 0, "the follower applied " + steps
                + " committed entries " + lag.toMillis() + " ms after the leader in all, as if it waited for the resend ("
                + resend.toMillis() + " ms) each time");
    }

    @Test
    void aMemberThatRejoinsReplaysItsOwnLogAndThenFollowsTheGroup() throws Exception {
        // Two of the node list's five never start: the leader drops them, so that one member's leave keeps a majority.
        Node leader = startThreeVoters();
        append(leader, "a");
        append(leader, "b");
        Node follower = nodes.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
        waitUntil(WAIT, () -> follower.applied().equals(List.of("a", "b")), () -> describe(nodes.values()));
        follower.membership().close();
        nodes.remove(follower.name());
        append(leader, "c");

        int index = Integer.parseInt(follower.name().substring(1));
        assertTrue(Files.isDirectory(logs.resolve(follower.name())), "the log is kept on disk");
        Node back = start(index);
        assertTrue(back.replayed().containsAll(List.of("a")), "entries of its own log are replayed as such: " + back.replayed());
        assertFalse(back.replayed().contains("c"), "what it missed comes from the leader, not its log: " + back.replayed());
        Node current = awaitLeader(nodes.values());
        append(current, "d");
        waitUntil(WAIT, () -> back.applied().equals(List.of("a", "b", "c", "d")), () -> "the rejoined member applies the whole log "
                + "once: " + describe(nodes.values()));
        Optional<String> leaderName = back.log().leader();
        assertEquals(Optional.of(current.name()), leaderName);
    }

    /**
     * A follower whose term is above the leader's (the futile votes of a member cut off as the
     * coordinator of a view leave it so) drops every message of the leader, and with no view
     * change nobody votes again: it names no leader for good, and applies nothing. It starts a
     * vote itself once it has had no leader for a while with a majority of the voters in view;
     * the group then agrees on one leader and applies what it appends everywhere.
     */
    @Test
    void aFollowerWithATermAboveTheLeadersNamesALeaderAgainAndAppliesWhatIsAppended() throws Exception {
        for (int i = 0; i < 5; i++) {
            start(i);
        }
        Node leader = awaitLeader(nodes.values());
        waitUntil(WAIT, () -> leader.log().voters().size() == 5, () -> "five voters: " + describe(nodes.values()));
        append(leader, "before");
        String coordinator = leader.membership().view().members().getFirst().name();
        Node ahead = nodes.values().stream().filter(n -> n != leader && !n.name().equals(coordinator)).findFirst().orElseThrow();
        waitUntil(WAIT, () -> ahead.applied().equals(List.of("before")), () -> describe(nodes.values()));
        GroupProbes.raiseRaftTerm(ahead.membership(), GroupProbes.raftTerm(leader.membership()) + 5);
        waitUntil(WAIT, () -> ahead.log().leader().isEmpty(), () -> ahead.name() + " drops its leader with its term: " + describe(nodes.values()));

        Node current = awaitLeader(nodes.values());
        append(current, "after");
        waitUntil(WAIT, () -> nodes.values().stream().allMatch(n -> n.applied().equals(List.of("before", "after"))),
                () -> "every member, " + ahead.name() + " included, applies the entry appended after: " + describe(nodes.values()));
    }

    /**
     * RAFT tells of a change of leader holding its state's lock. A leadership listener that waits
     * for a lock of its own, held by a thread that asks RAFT who leads, must not deadlock with it:
     * the scheduler does both (its tick asks who leads under its lock; its listener takes that
     * lock), and a daemon so deadlocked answered no request (scripts/chaos, seed 501, job 14).
     */
    @Test
    void aLeadershipListenerMayWaitForALockHeldByAThreadAskingWhoLeads() throws Exception {
        Node leader = startThreeVoters();
        List<Node> others = nodes.values().stream().filter(n -> n != leader).toList();
        Object lock = new Object();
        java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch listened = new java.util.concurrent.CountDownLatch(1);
        for (Node n : others) {
            n.log().addLeadershipListener(leads -> {
                if (leads) {
                    listening.countDown();
                    synchronized (lock) {
                        listened.countDown();
                    }
                }
            });
        }
        CompletableFuture<List<Optional<String>>> asked = new CompletableFuture<>();
        Thread asker = Thread.ofPlatform().daemon().start(() -> {
            synchronized (lock) {
                try {
                    if (listening.await(60, TimeUnit.SECONDS)) {
                        asked.complete(others.stream().map(n -> n.log().leader()).toList());
                    }
                } catch (InterruptedException e) {
                    asked.completeExceptionally(e);
                }
            }
        });
        leader.membership().close();
        nodes.remove(leader.name());
        assertTrue(listening.await(60, TimeUnit.SECONDS), "a new leader was elected: " + describe(others));
        List<Optional<String>> answers = asked.get(10, TimeUnit.SECONDS);
        assertTrue(listened.await(10, TimeUnit.SECONDS), "the listener got its lock once the asker let it go");
        assertTrue(answers.stream().anyMatch(Optional::isPresent), "who leads, as the asker heard it: " + answers);
        asker.join(10_000);
    }
}
