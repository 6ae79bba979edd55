package org.mpirunft.scheduler.internal;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.MembershipListener;
import org.mpirunft.membership.MessageListener;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.membership.ReplicatedLog;

/**
 * A membership group in memory for the scheduler's tests: views, messages and log entries go
 * into one FIFO queue and are delivered by {@link #drain()} on the test's thread, so each
 * sender's order holds (as JGroups gives) and every run is the same.
 *
 * <p>The replicated log is an ideal one: the coordinator of the group's view leads, what it
 * appends is committed at once and reaches every member of the view in log order, and a member
 * that joins or merges back catches up. A leader that is isolated or expelled still believes it
 * leads, as a real one does until its view shows the loss, but nothing it appends commits.
 */
final class FakeGroup {
    private record Delivery(String from, String to, Runnable action) {
    }

    private final Map<String, FakeMember> members = new LinkedHashMap<>();
    private final Deque<Delivery> queue = new ArrayDeque<>();
    /** Expelled members, until they merge back. */
    private final Map<String, FakeMember> outside = new LinkedHashMap<>();
    private long viewId;
    private ClusterView view = ClusterView.NONE;
    /** The committed log. */
    private final List<byte[]> log = new ArrayList<>();
    private long term;
    private FakeMember logLeader;

    /** A member that joins with {@link Membership#start()}; the oldest member is the coordinator. */
    FakeMember member(String name, NodeRole role) {
        return new FakeMember(new NodeMetadata(name, role, 1, InetSocketAddress.createUnresolved("127.0.0.1", 7000)));
    }

    ClusterView view() {
        return view;
    }

    /** Delivers everything queued, including what the deliveries queue, until nothing is left. */
    void drain() {
        for (int i = 0; !queue.isEmpty(); i++) {
            if (i > 100_000) {
                throw new IllegalStateException("the group does not settle: messages keep coming");
            }
            Delivery d = queue.poll();
            if (members.containsKey(d.to()) || outside.containsKey(d.to())) {
                d.action().run();
            }
        }
    }

    /** Kills {@code name}: what it still had queued is lost. Then the survivors get a view without it. */
    void crash(String name) {
        queue.removeIf(d -> d.from().equals(name) || d.to().equals(name));
        FakeMember dead = members.remove(name);
        installView(List.of(), List.of(dead));
    }

    /**
     * {@code name} stops answering and is expelled: the others get a view without it, and it
     * learns it was expelled while still holding its old view (as a node that was stopped and
     * wakes up does). What it sends and what is sent to it is lost until {@link #mergeBack}.
     */
    void expel(String name) {
        ClusterView old = view;
        FakeMember out = members.remove(name);
        queue.removeIf(d -> d.to().equals(name) || d.from().equals(name));
        outside.put(name, out);
        installView(List.of(), List.of(out));
        queue.add(new Delivery("gms", name, () -> out.listeners.forEach(l -> l.onEvent(new MembershipEvent.Expelled(
                MembershipEvent.Expelled.Reason.REMOVED_WHILE_UNRESPONSIVE, "removed while unresponsive", old)))));
    }

    /**
     * {@code name}'s link goes down. The others get a view without it. It gets a view of its own,
     * numbered as theirs, of itself and {@code phantoms}: members it has not suspected yet, which
     * JGroups on a cut-off node can keep in its view for seconds though it cannot reach them. It
     * is that view's coordinator. Until {@link #mergeBack}, nothing crosses the link: its
     * broadcasts reach only itself.
     */
    void isolate(String name, List<String> phantoms) {
        FakeMember out = members.remove(name);
        queue.removeIf(d -> d.to().equals(name) || d.from().equals(name));
        outside.put(name, out);
        installView(List.of(), List.of(out));
        List<Member> own = new ArrayList<>(List.of(out.asMember()));
        phantoms.forEach(p -> own.add(members.get(p).asMember()));
        ClusterView mine = new ClusterView(view.id(), own);
        List<MembershipEvent> events = members.values().stream().filter(m -> !phantoms.contains(m.name()))
                .map(m -> (MembershipEvent) new MembershipEvent.NodeFailed(m.asMember(), mine)).toList();
        queue.add(new Delivery("gms", name, () -> events.forEach(e -> out.listeners.forEach(l -> l.onEvent(e)))));
    }

    /**
     * {@code name} is told it was expelled (the notice of a side that removed it while it was
     * unresponsive) but stays in this view, and keeps the log's leadership if it had it: no
     * majority elected another leader meanwhile. {@link #takenBack} ends it.
     */
    void expelledNotice(String name) {
        FakeMember m = members.get(name);
        ClusterView old = view;
        queue.add(new Delivery("gms", name, () -> m.listeners.forEach(l -> l.onEvent(new MembershipEvent.Expelled(
                MembershipEvent.Expelled.Reason.REMOVED_WHILE_UNRESPONSIVE, "a side that removed it says so", old)))));
    }

    /** A newer view of the same members, as the merge that takes an expelled member back brings; the log's leader stays. */
    void takenBack(String name) {
        view = new ClusterView(++viewId, members.values().stream().map(FakeMember::asMember).toList());
        ClusterView v = view;
        List<List<Member>> sides = List.of(List.of(members.get(name).asMember()),
                members.values().stream().filter(m -> !m.name().equals(name)).map(FakeMember::asMember).toList());
        for (FakeMember m : members.values()) {
            queue.add(new Delivery("gms", m.name(), () -> m.listeners.forEach(l -> l.onEvent(new MembershipEvent.PartitionHealed(sides, v)))));
        }
    }

    /** The expelled {@code name} merges back, first in the merged view: the coordinator, as a merge may make it. */
    void mergeBack(String name) {
        FakeMember back = outside.remove(name);
        Map<String, FakeMember> merged = new LinkedHashMap<>();
        merged.put(name, back);
        merged.putAll(members);
        members.clear();
        members.putAll(merged);
        electLogLeader();
        if (back.log.leading && back != logLeader) {
            back.log.leading = false; // it learns the merged group's leader
            queue.add(new Delivery("log", name, () -> back.log.listeners.forEach(l -> l.accept(false))));
        }
        catchUp(back);
        view = new ClusterView(++viewId, members.values().stream().map(FakeMember::asMember).toList());
        ClusterView v = view;
        members.values().forEach(m -> m.quorumBase = members.size());
        List<List<Member>> sides = List.of(List.of(back.asMember()),
                members.values().stream().filter(m -> m != back).map(FakeMember::asMember).toList());
        for (FakeMember m : members.values()) {
            queue.add(new Delivery("gms", m.name(), () -> m.listeners.forEach(l -> l.onEvent(new MembershipEvent.PartitionHealed(sides, v)))));
        }
    }

    /** The view's coordinator leads the log; a former leader still in the view is told it no longer leads. */
    private void electLogLeader() {
        FakeMember coordinator = members.values().stream().findFirst().orElse(null);
        if (coordinator == logLeader) {
            return;
        }
        FakeMember old = logLeader;
        if (old != null && members.containsKey(old.name())) {
            old.log.leading = false;
            queue.add(new Delivery("log", old.name(), () -> old.log.listeners.forEach(l -> l.accept(false))));
        }
        logLeader = coordinator;
        if (coordinator != null) {
            term++;
            coordinator.log.leading = true;
            queue.add(new Delivery("log", coordinator.name(), () -> coordinator.log.listeners.forEach(l -> l.accept(true))));
        }
    }

    /** {@code member} applies the committed entries it has not applied yet, in order. */
    private void catchUp(FakeMember member) {
        queue.add(new Delivery("log", member.name(), () -> {
            while (member.log.applied < log.size() && members.containsKey(member.name())) {
                byte[] entry = log.get(member.log.applied++);
                member.log.machine.apply(entry.clone(), false);
            }
        }));
    }

    private void installView(List<FakeMember> joined, List<FakeMember> failed) {
        electLogLeader();
        view = new ClusterView(++viewId, members.values().stream().map(FakeMember::asMember).toList());
        ClusterView v = view;
        if (failed.isEmpty()) {
            // A join or a graceful leave sets the group's count for quorum; failures leave it.
            members.values().forEach(m -> m.quorumBase = members.size());
        }
        for (FakeMember m : members.values()) {
            List<MembershipEvent> events = new ArrayList<>();
            if (joined.contains(m)) {
                // A member's own first view reports every member, itself included.
                members.values().forEach(other -> events.add(new MembershipEvent.NodeJoined(other.asMember(), v)));
            } else {
                joined.forEach(j -> events.add(new MembershipEvent.NodeJoined(j.asMember(), v)));
                failed.forEach(f -> events.add(new MembershipEvent.NodeFailed(f.asMember(), v)));
            }
            for (MembershipEvent e : events) {
                queue.add(new Delivery("gms", m.name(), () -> m.listeners.forEach(l -> l.onEvent(e))));
            }
        }
    }

    final class FakeMember implements Membership {
        private final NodeMetadata metadata;
        private final String id;
        private final List<MembershipListener> listeners = new CopyOnWriteArrayList<>();
        private final List<MessageListener> messageListeners = new CopyOnWriteArrayList<>();
        private State state = State.NEW;
        /** As the real group counts it: kept by a member outside the group at what it was when it went out. */
        private int quorumBase;
        private final FakeLog log = new FakeLog(this);

        private FakeMember(NodeMetadata metadata) {
            this.metadata = metadata;
            this.id = metadata.name() + "-" + System.nanoTime();
        }

        String name() {
            return metadata.name();
        }

        Member asMember() {
            return new Member(id, metadata, new NodeLoad(0.0, 0));
        }

        @Override
        public void addListener(MembershipListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(MembershipListener listener) {
            listeners.remove(listener);
        }

        @Override
        public void addMessageListener(MessageListener listener) {
            messageListeners.add(listener);
        }

        @Override
        public void removeMessageListener(MessageListener listener) {
            messageListeners.remove(listener);
        }

        @Override
        public void start() {
            if (state == State.JOINED) {
                return;
            }
            state = State.JOINED;
            members.put(name(), this);
            if (log.machine != null) {
                log.machine.reset();
                log.applied = 0;
            }
            installView(List.of(this), List.of());
            catchUp(this);
        }

        @Override
        public void leave() {
            close();
        }

        @Override
        public void close() {
            state = State.CLOSED;
            if (members.remove(name()) != null) {
                installView(List.of(), List.of());
            }
        }

        @Override
        public State state() {
            return state;
        }

        @Override
        public ClusterView view() {
            return members.containsKey(name()) ? view : ClusterView.NONE;
        }

        @Override
        public int quorumBase() {
            return quorumBase;
        }

        @Override
        public NodeMetadata metadata() {
            return metadata;
        }

        @Override
        public ReplicatedLog replicatedLog() {
            return log;
        }

        @Override
        public String memberId() {
            return id;
        }

        @Override
        public void publishLoadNow() {
        }

        @Override
        public boolean broadcast(byte[] payload) {
            if (outside.containsKey(name())) {
                queue.add(new Delivery(name(), name(), () -> messageListeners.forEach(l -> l.onMessage(name(), payload.clone()))));
                return true;
            }
            if (!members.containsKey(name())) {
                return false;
            }
            for (FakeMember to : members.values()) {
                queue.add(new Delivery(name(), to.name(), () -> to.messageListeners.forEach(l -> l.onMessage(name(), payload.clone()))));
            }
            return true;
        }

        @Override
        public boolean send(String node, byte[] payload) {
            FakeMember to = members.get(node);
            if (!members.containsKey(name()) || to == null) {
                return false;
            }
            queue.add(new Delivery(name(), node, () -> to.messageListeners.forEach(l -> l.onMessage(name(), payload.clone()))));
            return true;
        }
    }

    /** One member's handle on the group's ideal log. */
    final class FakeLog implements ReplicatedLog {
        private final FakeMember member;
        private final List<Consumer<Boolean>> listeners = new CopyOnWriteArrayList<>();
        private Machine machine;
        private int applied;
        /** What this member believes: true from its election until it is told otherwise, cut off or not. */
        private boolean leading;

        FakeLog(FakeMember member) {
            this.member = member;
        }

        @Override
        public void attach(Machine m) {
            this.machine = m;
        }

        @Override
        public CompletableFuture<Void> append(byte[] entry) {
            if (!leading) {
                return CompletableFuture.failedFuture(new IllegalStateException(member.name() + " is not the log's leader"));
            }
            if (logLeader != member || !members.containsKey(member.name())) {
                return new CompletableFuture<>(); // a cut-off leader's entry never commits
            }
            log.add(entry.clone());
            members.values().forEach(FakeGroup.this::catchUp);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean isLeader() {
            return leading;
        }

        @Override
        public Optional<String> leader() {
            if (leading) {
                return Optional.of(member.name());
            }
            return members.containsKey(member.name()) && logLeader != null ? Optional.of(logLeader.name()) : Optional.empty();
        }

        @Override
        public long term() {
            return term;
        }

        @Override
        public List<String> voters() {
            return List.of();
        }

        @Override
        public void addLeadershipListener(Consumer<Boolean> listener) {
            listeners.add(listener);
        }
    }
}
