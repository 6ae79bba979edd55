package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.MergeView;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.JoinFailedException;
import org.mpirunft.membership.JoinRefusedException;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.MembershipEvent.Expelled;
import org.mpirunft.membership.MembershipEvent.NodeSuspected;
import org.mpirunft.membership.MembershipListener;
import org.mpirunft.membership.MessageListener;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.ReplicatedLog;
import org.mpirunft.membership.NodeMetadata;

/**
 * The membership service on a JGroups channel.
 *
 * <p>Threads: JGroups calls in on its own threads ({@link #viewAccepted}, {@link #receive}, the
 * {@link EventTap} and {@link ExpulsionProbe} handlers). Each call updates the state under
 * {@link #lock} and queues the resulting events, still under the lock, on the {@link ServiceThread},
 * which calls the listeners with no lock held. Queuing under the lock keeps the
 * events in the order the state changed; JGroups delivers a coordinator's notices and views in
 * the order it sent them, so that is the same order at every member. The same thread publishes
 * the load periodically.
 *
 * <p>Application messages ({@link #broadcast}, {@link #send}) carry an {@link AppMessageHeader}.
 * {@link #receive} queues them on the same thread without taking the lock: NAKACK2 and UNICAST3
 * hand up one sender's messages one at a time and in sending order, so queuing in call order
 * keeps each sender's order.
 *
 * <p>Why one class of about 900 lines: the view, the leave barrier, the expulsion rules and the
 * channel's lifecycle all change under the one lock that orders the events; split apart they
 * would share that lock and most of the fields. The pieces that need no lock are classes of their
 * own ({@link ViewDiff}, {@link ExpulsionRule}, {@link LeaveBarrier}, {@link RaftLog}).
 */
public final class MembershipImpl implements Membership, Receiver, EventTap.Handler, ExpulsionProbe.Handler {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    private final MembershipConfig config;
    private final NodeMetadata metadata;
    private final String name;
    private final ServiceThread thread;
    private final LoadReporter loadReporter;
    /** The replicated log, when the config names a log directory. */
    private final RaftLog log;

    private final Object lock = new Object();
    @GuardedBy("lock") private State state = State.NEW;
    @GuardedBy("lock") private GroupStack.Parts stack;
    @GuardedBy("lock") private String selfId;
    @GuardedBy("lock") private ClusterView view = ClusterView.NONE;
    /** Addresses of the members of {@link #view}, by member id. */
    @GuardedBy("lock") private final Map<String, Address> addresses = new HashMap<>();
    @GuardedBy("lock") private final Map<String, NodeLoad> loads = new HashMap<>();
    @GuardedBy("lock") private final Map<String, Long> loadSeqs = new HashMap<>();
    /** Members that announced a leave; their removal is a leave, not a failure. */
    @GuardedBy("lock") private final Set<String> leaving = new HashSet<>();
    /** Members already reported as suspected in the current view. */
    @GuardedBy("lock") private final Set<String> suspected = new HashSet<>();
    /** Members the group counts for quorum: set on joins and merges, lowered by graceful leaves only. */
    @GuardedBy("lock")
    private int quorumBase;
    @GuardedBy("lock") private boolean expelledReported;
    /**
     * Every member that has shared a view with this one since it started. Two groups whose
     * members never met were not cut apart: they formed apart (discovery raced at start-up)
     * and their merge expels nobody.
     */
    @GuardedBy("lock") private final Set<String> fellows = new HashSet<>();
    @GuardedBy("lock") private LeaveBarrier leaveBarrier;
    @GuardedBy("lock") private ScheduledFuture<?> loadTask;
    @GuardedBy("lock") private ScheduledFuture<?> voterTask;
    /** How often the log's leader checks its voters besides at every view. */
    private static final Duration VOTER_UPKEEP_PERIOD = Duration.ofSeconds(1);

    public MembershipImpl(MembershipConfig config, NodeMetadata metadata, LoadSource loadSource) {
        this.config = Objects.requireNonNull(config, "config");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.name = metadata.name();
        MetadataCodec.encode(metadata); // fails early if the metadata does not fit in an address
        this.thread = new ServiceThread(name);
        this.loadReporter = new LoadReporter(name, Objects.requireNonNull(loadSource, "loadSource"));
        this.log = config.logDirectory().isPresent() ? new RaftLog(name, config, task -> thread.execute(task)) : null;
    }

    @Override
    public ReplicatedLog replicatedLog() {
        if (log == null) {
            throw new IllegalStateException(name + ": the group keeps no replicated log: no log directory is configured");
        }
        return log;
    }

    /** The one instance behind a {@link Membership} created by this module. */
    public static MembershipImpl of(Membership membership) {
        if (membership instanceof MembershipImpl impl) {
            return impl;
        }
        throw new IllegalArgumentException("not a membership service of this module: " + membership.getClass().getName());
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void addListener(MembershipListener listener) {
        thread.addListener(listener);
    }

    @Override
    public void removeListener(MembershipListener listener) {
        thread.removeListener(listener);
    }

    @Override
    public void addMessageListener(MessageListener listener) {
        thread.addMessageListener(listener);
    }

    @Override
    public void removeMessageListener(MessageListener listener) {
        thread.removeMessageListener(listener);
    }

    @Override
    public void start() {
        synchronized (lock) {
            switch (state) {
                case CLOSED -> throw new IllegalStateException(name + ": membership service is closed");
                case JOINING, JOINED, LEAVING -> {
                    return;
                }
                case NEW, LEFT -> state = State.JOINING;
            }
            resetGroupState();
        }
        GroupStack.Parts parts = null;
        try {
            parts = GroupStack.create(config);
            parts.tap().setHandler(this);
            parts.probe().setHandler(this);
            parts.channel().setReceiver(this);
            parts.channel().addAddressGenerator(() -> MetadataCodec.newAddress(metadata));
            parts.channel().setName(name);
            registerMBeans(parts.channel());
            if (log != null) {
                log.bind(parts.raft());
            }
            synchronized (lock) {
                stack = parts;
            }
            // Not under the lock: the first view arrives on a JGroups thread while connect() waits.
            try {
                parts.channel().connect(config.clusterName());
            } finally {
                if (log != null) {
                    log.joined();
                }
            }
            int joinRequests = parts.tap().getJoinRequestsSent();
            if (joinRequests > 0 && parts.channel().getView().size() == 1) {
                // GMS found a coordinator, sent it JOIN requests, got no answer and went on alone:
                // that would split the cluster silently. A coordinator that cannot decrypt the
                // requests (another secret or encryption setting) does not answer them; a member
                // that found nobody (the first of a new group) sent none and is not affected.
                throw new JoinRefusedException(name, config.clusterName(), joinRequests);
            }
        } catch (Exception e) {
            if (parts != null) {
                closeChannel(parts.channel());
            }
            synchronized (lock) {
                stack = null;
                if (state != State.CLOSED) {
                    state = State.NEW;
                }
                resetGroupState();
            }
            throw joinFailure(e);
        }
        synchronized (lock) {
            if (state == State.CLOSED) { // close() ran while this thread was joining
                closeChannel(parts.channel());
                stack = null;
                throw new IllegalStateException(name + ": membership service was closed while joining");
            }
            state = State.JOINED;
            loadTask = thread.every(config.loadReportInterval(), () -> publishLoad(false));
            if (log != null) {
                // Voter upkeep also runs on a timer: a change refused during an election is tried again.
                voterTask = thread.every(VOTER_UPKEEP_PERIOD, this::upkeepVoters);
            }
            LOG.log(Level.INFO, () -> name + ": joined cluster '" + config.clusterName() + "' as " + selfId
                    + ", view " + view.id() + " " + view.names());
        }
    }

    @Override
    public void leave() {
        LeaveBarrier barrier;
        GroupStack.Parts parts;
        String leaverId;
        synchronized (lock) {
            if (state != State.JOINED) {
                return;
            }
            state = State.LEAVING;
            parts = stack;
            leaverId = selfId;
            // An expelled member is no longer in the others' views: nobody would acknowledge.
            barrier = new LeaveBarrier(expelledReported ? List.of() : othersInView());
            leaveBarrier = barrier;
            cancelLoadTask();
            leaving.add(selfId);
        }
        try {
            WireMessage.LeaveIntent intent = new WireMessage.LeaveIntent(WireMessage.VERSION, leaverId);
            if (!barrier.missing().isEmpty()) {
                send(parts.channel(), null, intent);
            }
            // A multicast can be lost (for example on a TCP connection JGroups replaces right after
            // members joined) and NAKACK2 would only retransmit it later than we wait: resend it,
            // by unicast, to whoever has not acknowledged yet. Duplicates are harmless.
            long deadline = System.nanoTime() + config.leaveTimeout().toNanos();
            Duration resend = Duration.ofMillis(Math.max(50, config.leaveTimeout().toMillis() / 10));
            boolean acknowledged = barrier.await(resend);
            while (!acknowledged && System.nanoTime() < deadline) {
                for (Address missing : addressesOfIds(barrier.missing())) {
                    send(parts.channel(), missing, intent);
                }
                long left = deadline - System.nanoTime();
                acknowledged = barrier.await(Duration.ofNanos(Math.max(0, Math.min(left, resend.toNanos()))));
            }
            if (!acknowledged) {
                LOG.log(Level.WARNING, () -> name + ": leaving without acknowledgements from " + barrier.missing()
                        + " after " + config.leaveTimeout().toMillis() + " ms; they may report a failure instead of a leave");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            parts.channel().disconnect();
            closeChannel(parts.channel());
            synchronized (lock) {
                stack = null;
                state = State.LEFT;
                leaveBarrier = null;
                resetGroupState();
            }
            LOG.log(Level.INFO, () -> name + ": left cluster '" + config.clusterName() + "'");
        }
    }

    @Override
    public void close() {
        leave();
        GroupStack.Parts parts;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            parts = stack; // still joining, or a join that failed half-way
            stack = null;
            state = State.CLOSED;
            cancelLoadTask();
        }
        if (parts != null) {
            closeChannel(parts.channel());
        }
        thread.shutdown(Duration.ofSeconds(5));
    }

    @Override
    public State state() {
        synchronized (lock) {
            return state;
        }
    }

    @Override
    public ClusterView view() {
        synchronized (lock) {
            return withCurrentLoads(view);
        }
    }

    @Override
    public int quorumBase() {
        synchronized (lock) {
            return quorumBase;
        }
    }

    @Override
    public NodeMetadata metadata() {
        return metadata;
    }

    @Override
    public String memberId() {
        synchronized (lock) {
            return selfId;
        }
    }

    @Override
    public void publishLoadNow() {
        if (!thread.execute(() -> publishLoad(true))) {
            LOG.log(Level.DEBUG, () -> name + ": not publishing load, the service is closed");
        }
    }

    @Override
    public boolean broadcast(byte[] payload) {
        return sendApplicationMessage(null, null, payload);
    }

    @Override
    public boolean send(String node, byte[] payload) {
        Objects.requireNonNull(node, "node");
        return sendApplicationMessage(node, addressesOf(List.of(node)), payload);
    }

    /** To the group when {@code node} is null, else to the one address in {@code dest}. */
    private boolean sendApplicationMessage(String node, List<Address> dest, byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        JChannel channel = joinedChannel();
        if (channel == null) {
            return false;
        }
        if (node != null && dest.isEmpty()) {
            return false;
        }
        Message msg = new BytesMessage(node == null ? null : dest.getFirst(), payload)
                .putHeader(GroupIds.APP_MESSAGE_HEADER, new AppMessageHeader());
        try {
            channel.send(msg);
            return true;
        } catch (Exception e) {
            // The channel closed under us (a leave or close in progress): as if not joined.
            LOG.log(Level.WARNING, () -> name + ": could not send an application message"
                    + (node == null ? " to the group" : " to " + node) + ": " + e);
            return false;
        }
    }

    /**
     * With {@link MembershipConfig#jmx()}, the channel's and its protocols' MBeans, from before the
     * join until the channel closes. A member whose MBeans cannot be registered works without them.
     */
    private void registerMBeans(JChannel channel) {
        if (!config.jmx()) {
            return;
        }
        try {
            GroupMBeans.register(channel, config.clusterName(), name);
        } catch (Exception e) {
            LOG.log(Level.WARNING, () -> name + ": cannot register the group's MBeans (JMX): " + e);
        }
    }

    private void upkeepVoters() {
        JChannel channel;
        synchronized (lock) {
            channel = stack == null ? null : stack.channel();
        }
        if (channel != null && log != null) {
            log.upkeep(channel.getView());
        }
    }

    private void closeChannel(JChannel channel) {
        if (log != null) {
            log.unbind();
        }
        if (config.jmx()) {
            try {
                GroupMBeans.unregister(channel, config.clusterName(), name);
            } catch (Exception e) {
                LOG.log(Level.DEBUG, () -> name + ": cannot unregister the group's MBeans (JMX): " + e);
            }
        }
        channel.close();
    }

    /** The effective JGroups stack as XML, or null when not joined. */
    public String describeStack() {
        synchronized (lock) {
            return stack == null ? null : GroupStack.describe(stack.channel());
        }
    }

    /** The channel, for the tests' PartitionSimulator (same package); null when not joined. */
    JChannel channel() {
        synchronized (lock) {
            return stack == null ? null : stack.channel();
        }
    }

    /** Addresses of the current members with these node names. */
    List<Address> addressesOf(Collection<String> nodeNames) {
        synchronized (lock) {
            List<Address> result = new ArrayList<>();
            for (Member m : view.members()) {
                if (nodeNames.contains(m.name())) {
                    result.add(addresses.get(m.id()));
                }
            }
            return result;
        }
    }

    String name() {
        return name;
    }

    private List<Address> addressesOfIds(Collection<String> ids) {
        synchronized (lock) {
            return ids.stream().map(addresses::get).filter(Objects::nonNull).toList();
        }
    }

    // ---------------------------------------------------------------- JGroups callbacks

    @Override
    public void viewAccepted(View newView) {
        if (log != null) {
            log.upkeep(newView);
        }
        List<Runnable> sends = new ArrayList<>();
        synchronized (lock) {
            if (stack == null || !(state == State.JOINING || state == State.JOINED || state == State.LEAVING)) {
                return;
            }
            JChannel channel = stack.channel();
            if (state == State.JOINING && view == ClusterView.NONE && newView.size() == 1
                    && stack.tap().getJoinRequestsSent() > 0) {
                return; // the join went unanswered and GMS went on alone: start() fails, report nothing
            }
            if (selfId == null && channel.getAddress() != null) {
                selfId = MetadataCodec.idOf(channel.getAddress());
            }
            ClusterView previous = view;
            ClusterView next = toClusterView(newView);
            List<ClusterView> subgroupViews = newView instanceof MergeView merge
                    ? merge.getSubgroups().stream().map(this::toClusterView).toList()
                    : List.of();
            List<List<Member>> subgroups = subgroupViews.stream().map(ClusterView::members).toList();
            ViewDiff.Result diff = ViewDiff.apply(previous, next, subgroups, leaving);

            Map<String, Address> before = new HashMap<>(addresses);
            addresses.clear();
            for (Address a : newView.getMembers()) {
                addresses.put(MetadataCodec.idOf(a), a);
            }
            for (Member gone : diff.failed()) {
                Address address = before.get(gone.id());
                if (address != null) {
                    stack.probe().markFailed(address);
                }
            }
            if (previous == ClusterView.NONE || !subgroups.isEmpty() || !diff.joined().isEmpty()) {
                quorumBase = next.members().size();
            } else {
                // Graceful leaves shrink the group; failures do not, so one-by-one losses add up.
                quorumBase -= Math.max(0, previous.members().size() - next.members().size() - diff.failed().size());
            }
            if (subgroups.isEmpty()) {
                checkMinority(previous, next, diff.failed().size());
            } else {
                checkExpelledByMerge(previous, subgroupViews);
                newView.getMembers().forEach(stack.probe()::forget);
                expelledReported = false; // a member again; a later expulsion is news
                stack.probe().setSilenced(false);
            }
            Set<String> ids = addresses.keySet();
            leaving.retainAll(ids);
            suspected.clear();
            loads.keySet().retainAll(ids);
            loadSeqs.keySet().retainAll(ids);
            view = next;
            fellows.addAll(ids);
            if (leaveBarrier != null) {
                leaveBarrier.expect(othersInView());
            }
            enqueue(diff.events());
            logViewChange(previous, diff);

            boolean coordinator = selfId != null && selfId.equals(next.coordinator().map(Member::id).orElse(null));
            if (!diff.joined().isEmpty() && previous != ClusterView.NONE) {
                if (coordinator) {
                    // Members that joined after a leave was announced have not seen it: forward it,
                    // now, before this thread lets GMS cast the next view (the one removing the leaver).
                    for (String leaver : leaving) {
                        sends.add(() -> send(channel, null, new WireMessage.LeaveIntent(WireMessage.VERSION, leaver)));
                    }
                }
                // So the newcomers learn the loads now: each member sends its last report to them
                // alone. A broadcast by every member at every join would cost each join N^2
                // messages, and forming a group of N N^3.
                List<Address> newcomers = diff.joined().stream().map(m -> addresses.get(m.id())).filter(Objects::nonNull).toList();
                sends.add(() -> publishLoadTo(newcomers));
            }
        }
        for (Runnable send : sends) {
            send.run();
        }
    }

    @Override
    public void receive(Message msg) {
        if (!msg.hasArray()) {
            return;
        }
        if (msg.getHeader(GroupIds.APP_MESSAGE_HEADER) != null) {
            // Queued on the service thread in the order JGroups delivers, which per sender is the
            // order of sending; copied because the listener keeps it beyond this call.
            byte[] payload = Arrays.copyOfRange(msg.getArray(), msg.getOffset(), msg.getOffset() + msg.getLength());
            thread.deliverMessage(MetadataCodec.metadataOf(msg.getSrc()).name(), payload);
            return;
        }
        WireMessage message;
        try {
            message = WireCodec.decode(msg.getArray(), msg.getOffset(), msg.getLength(), WireMessage.class);
        } catch (WireCodec.MalformedMessageException e) {
            LOG.log(Level.WARNING, () -> name + ": dropping a message from " + msg.getSrc() + ": " + e.getMessage());
            return;
        }
        Address sender = msg.getSrc();
        String senderId = MetadataCodec.idOf(sender);
        switch (message) {
            case WireMessage.LoadReport report -> onLoadReport(senderId, report);
            case WireMessage.LeaveIntent intent -> onLeaveIntent(intent);
            case WireMessage.LeaveAck ack -> {
                synchronized (lock) {
                    if (leaveBarrier != null && ack.memberId().equals(selfId)) {
                        leaveBarrier.acked(senderId);
                    }
                }
            }
            default -> LOG.log(Level.WARNING, () -> name + ": unexpected " + message.getClass().getSimpleName()
                    + " from " + sender + " on the application channel; dropped");
        }
    }

    @Override
    public void onVerifiedSuspicion(List<Address> suspects) {
        List<String> ids = new ArrayList<>();
        JChannel channel;
        EventTap tap;
        synchronized (lock) {
            if (stack == null) {
                return;
            }
            channel = stack.channel();
            tap = stack.tap();
            for (Address a : suspects) {
                String id = MetadataCodec.idOf(a);
                if (reportSuspicion(id)) {
                    ids.add(id);
                }
            }
        }
        if (ids.isEmpty() || channel == null) {
            return;
        }
        // Sent before EventTap passes the SUSPECT event to GMS, so before the view that follows.
        try {
            tap.multicast(WireCodec.encode(new WireMessage.SuspectNotice(WireMessage.VERSION, ids)));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> name + ": could not announce the suspicion of " + ids + ": " + e);
        }
    }

    @Override
    public void onTapMessage(Address sender, byte[] payload, int offset, int length) {
        WireMessage message;
        try {
            message = WireCodec.decode(payload, offset, length, WireMessage.class);
        } catch (WireCodec.MalformedMessageException e) {
            LOG.log(Level.WARNING, () -> name + ": dropping a notice from " + sender + ": " + e.getMessage());
            return;
        }
        if (message instanceof WireMessage.SuspectNotice notice) {
            synchronized (lock) {
                notice.memberIds().forEach(this::reportSuspicion);
            }
        } else {
            LOG.log(Level.WARNING, () -> name + ": unexpected notice " + message.getClass().getSimpleName() + " from " + sender);
        }
    }

    @Override
    public void onExpelledNotice(Address sender, byte[] payload, int offset, int length) {
        WireMessage.ExpelledNotice notice;
        try {
            notice = WireCodec.decode(payload, offset, length, WireMessage.ExpelledNotice.class);
        } catch (WireCodec.MalformedMessageException e) {
            LOG.log(Level.WARNING, () -> name + ": dropping an expelled notice from " + sender + ": " + e.getMessage());
            return;
        }
        synchronized (lock) {
            if (expelledReported || selfId == null || !(state == State.JOINED || state == State.JOINING)) {
                return;
            }
            List<String> myIds = view.members().stream().map(Member::id).toList();
            Optional<Expelled.Reason> reason = ExpulsionRule.evaluate(selfId, view.id(), myIds, notice.viewId(),
                    notice.memberIds(), fellows);
            if (reason.isEmpty()) {
                return;
            }
            String detail = "coordinator " + MetadataCodec.metadataOf(sender).name() + " (" + MetadataCodec.idOf(sender)
                    + ") has view " + notice.viewId() + " of " + notice.memberIds().size()
                    + " members without this node; this node's view " + view.id() + " has " + myIds.size();
            reportExpelled(reason.get(), detail, view);
        }
    }

    // ---------------------------------------------------------------- internals

    /**
     * A merge can come before any expelled notice (the other side's merge leader may act
     * first): check the merged subgroups with the same rule, against the view before the merge.
     */
    @GuardedBy("lock")
    private void checkExpelledByMerge(ClusterView previous, List<ClusterView> subgroups) {
        if (expelledReported || selfId == null) {
            return;
        }
        List<String> myIds = previous.members().stream().map(Member::id).toList();
        for (ClusterView subgroup : subgroups) {
            List<String> ids = subgroup.members().stream().map(Member::id).toList();
            Optional<Expelled.Reason> reason = ExpulsionRule.evaluate(selfId, previous.id(), myIds, subgroup.id(), ids, fellows);
            if (reason.isPresent()) {
                String detail = "merged with subgroup " + subgroup.names()
                        + " that did not contain this node; this node's view " + previous.id() + " was "
                        + previous.names();
                reportExpelled(reason.get(), detail, previous);
                return;
            }
        }
    }

    /**
     * A view that lost a strict majority of the group's members to failures (since the last join,
     * merge or graceful leave, see {@link #quorumBase}) leaves this
     * member on the minority side of a partition (a cut link, a switch gone): the majority goes on
     * without it and, with no link, can never say so.
     */
    @GuardedBy("lock")
    private void checkMinority(ClusterView previous, ClusterView next, int failed) {
        if (expelledReported || failed == 0 || previous == ClusterView.NONE) {
            return;
        }
        List<String> voters = log == null ? List.of() : log.voters();
        if (!voters.isEmpty()) {
            // With a replicated log, the majority is the voters': the log's leader replaces lost
            // voters, so a side that lost members one by one still holds a majority of them.
            long present = next.members().stream().map(m -> logIdOf(m)).filter(voters::contains).count();
            if (2 * present <= voters.size()) {
                reportExpelled(Expelled.Reason.IN_MINORITY_AFTER_FAILURES, "view " + next.id() + " " + next.names() + " keeps "
                        + present + " of the " + voters.size() + " voters of the group's log", previous);
            }
            return;
        }
        if (2 * next.members().size() < quorumBase) {
            reportExpelled(Expelled.Reason.IN_MINORITY_AFTER_FAILURES, "view " + next.id() + " " + next.names() + " keeps "
                    + next.members().size() + " of the " + quorumBase + " members the group had since its last join or leave",
                    previous);
        }
    }

    /** A member's id in the replicated log, from its JGroups address; empty when it has none. */
    @GuardedBy("lock")
    private String logIdOf(Member member) {
        Address address = addresses.get(member.id());
        return address == null ? "" : RaftLog.idOf(address).orElse("");
    }

    @GuardedBy("lock")
    private void reportExpelled(Expelled.Reason reason, String detail, ClusterView staleView) {
        expelledReported = true;
        // This member's view is no longer evidence against anyone: its notices would make members
        // of the group it yielded to think they were the ones removed.
        if (stack != null) {
            stack.probe().setSilenced(true);
        }
        LOG.log(Level.WARNING, () -> name + ": EXPELLED from the group (" + reason + "): " + detail);
        enqueue(List.of(new Expelled(reason, detail, withCurrentLoads(staleView))));
    }

    @GuardedBy("lock")
    private boolean reportSuspicion(String id) {
        Optional<Member> member = view.memberById(id);
        if (member.isEmpty() || !suspected.add(id)) {
            return false;
        }
        LOG.log(Level.INFO, () -> name + ": " + member.get().name() + " is suspected");
        enqueue(List.of(new NodeSuspected(member.get(), withCurrentLoads(view))));
        return true;
    }

    private void onLoadReport(String senderId, WireMessage.LoadReport report) {
        NodeLoad load;
        try {
            load = new NodeLoad(report.loadAverage(), report.slotsInUse(), report.drain());
        } catch (IllegalArgumentException e) {
            LOG.log(Level.WARNING, () -> name + ": invalid load report from " + senderId + ": " + e.getMessage());
            return;
        }
        synchronized (lock) {
            if (!addresses.containsKey(senderId)) {
                return;
            }
            Long last = loadSeqs.get(senderId);
            if (last == null || report.seq() > last) {
                loadSeqs.put(senderId, report.seq());
                loads.put(senderId, load);
            }
        }
    }

    private void onLeaveIntent(WireMessage.LeaveIntent intent) {
        JChannel channel;
        Address leaver;
        synchronized (lock) {
            leaver = addresses.get(intent.memberId());
            if (leaver == null || stack == null) {
                return;
            }
            if (leaving.add(intent.memberId())) {
                LOG.log(Level.INFO, () -> name + ": " + MetadataCodec.metadataOf(leaver).name() + " announced its leave");
            }
            channel = stack.channel();
        }
        send(channel, leaver, new WireMessage.LeaveAck(WireMessage.VERSION, intent.memberId()));
    }

    /** Sends this member's last load report to {@code newcomers}; publishes one to all if there is none yet. */
    private void publishLoadTo(List<Address> newcomers) {
        if (!thread.execute(() -> {
            JChannel channel = joinedChannel();
            if (channel == null) {
                return;
            }
            Optional<WireMessage.LoadReport> last = loadReporter.last();
            if (last.isEmpty()) {
                publishLoad(true);
                return;
            }
            for (Address newcomer : newcomers) {
                send(channel, newcomer, last.get());
            }
        })) {
            LOG.log(Level.DEBUG, () -> name + ": not sending the load to the newcomers, the service is closed");
        }
    }

    /** Runs on the {@link ServiceThread}. */
    private void publishLoad(boolean force) {
        JChannel channel = joinedChannel();
        if (channel == null) {
            return;
        }
        loadReporter.next(force).ifPresent(report -> send(channel, null, report));
    }

    /** The channel while this member is joined; null otherwise (not yet, leaving, left or closed). */
    private JChannel joinedChannel() {
        synchronized (lock) {
            return state == State.JOINED && stack != null ? stack.channel() : null;
        }
    }

    private void send(JChannel channel, Address dest, WireMessage message) {
        try {
            channel.send(new BytesMessage(dest, WireCodec.encode(message)));
        } catch (Exception e) {
            LOG.log(Level.WARNING, () -> name + ": could not send " + message.getClass().getSimpleName()
                    + (dest == null ? " to the group" : " to " + dest) + ": " + e);
        }
    }

    /** Queued under the lock so that events keep the order of the state changes. */
    @GuardedBy("lock")
    private void enqueue(List<MembershipEvent> events) {
        thread.deliver(events);
    }

    @GuardedBy("lock")
    private ClusterView toClusterView(View v) {
        List<Member> members = new ArrayList<>(v.size());
        for (Address a : v.getMembers()) {
            String id = MetadataCodec.idOf(a);
            members.add(new Member(id, MetadataCodec.metadataOf(a), loads.getOrDefault(id, NodeLoad.UNKNOWN)));
        }
        return new ClusterView(v.getViewId().getId(), members);
    }

    @GuardedBy("lock")
    private ClusterView withCurrentLoads(ClusterView v) {
        if (loads.isEmpty()) {
            return v;
        }
        return new ClusterView(v.id(), v.members().stream()
                .map(m -> m.withLoad(loads.getOrDefault(m.id(), m.load())))
                .toList());
    }

    @GuardedBy("lock")
    private List<String> othersInView() {
        return view.members().stream().map(Member::id).filter(id -> !id.equals(selfId)).toList();
    }

    @GuardedBy("lock")
    private void cancelLoadTask() {
        if (voterTask != null) {
            voterTask.cancel(false);
            voterTask = null;
        }
        if (loadTask != null) {
            loadTask.cancel(false);
            loadTask = null;
        }
    }

    @GuardedBy("lock")
    private void resetGroupState() {
        selfId = null;
        view = ClusterView.NONE;
        addresses.clear();
        loads.clear();
        loadSeqs.clear();
        leaving.clear();
        suspected.clear();
        expelledReported = false;
        fellows.clear();
        loadReporter.reset();
    }

    @GuardedBy("lock")
    private void logViewChange(ClusterView previous, ViewDiff.Result diff) {
        LOG.log(Level.INFO, () -> name + ": view " + previous.id() + " -> " + diff.view().id() + " " + diff.view().names()
                + " events " + diff.events().stream().map(e -> e.getClass().getSimpleName()).toList());
    }

    private JoinFailedException joinFailure(Exception e) {
        if (e instanceof JoinFailedException failed) {
            return failed;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SecurityException) {
                return new JoinRefusedException(name, config.clusterName(), String.valueOf(t.getMessage()), e);
            }
        }
        return new JoinFailedException(name, config.clusterName(), String.valueOf(e.getMessage()), e);
    }
}
