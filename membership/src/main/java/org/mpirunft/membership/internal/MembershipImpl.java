package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.LoadSource;
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
 * The membership service on a JGroups channel ({@link GroupChannel}): its lifecycle, the view this
 * member holds, and the events and messages that follow from it.
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
 * <p>The view ({@link GroupView}), the leave barrier and the channel's lifecycle all change under
 * the one lock that orders the events: {@link GroupView} keeps its state under this class's lock,
 * which every caller here holds, and this class carries out what each change means (events queued,
 * the expulsion probe told, messages sent). The pieces that need no lock are classes of their own
 * ({@link GroupChannel}, {@link LoadReporter}, {@link ViewDiff}, {@link ExpulsionRule},
 * {@link LeaveBarrier}, {@link RaftLog}).
 *
 * <p>Longer than most classes here: it is the one holder of that lock, so the lifecycle, the
 * JGroups callbacks and the side effects of each change stay together; moved apart, each piece
 * would take the lock, the channel and the lifecycle state as parameters and repeat the checks of
 * which state a callback may act in.
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
    /** This incarnation's channel, from the start of a join until the member has left or closed. */
    @GuardedBy("lock") private GroupChannel groupChannel;
    /** The view and what this member knows of its members; the lock guards its state too. */
    @GuardedBy("lock") private final GroupView group;
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
        this.loadReporter = new LoadReporter(name, Objects.requireNonNull(loadSource, "loadSource"), thread, this::joinedChannel);
        this.log = config.logDirectory().isPresent() ? new RaftLog(name, config, task -> thread.execute(task)) : null;
        this.group = new GroupView(name, log);
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
        GroupChannel joining = null;
        try {
            joining = new GroupChannel(config, name, log, GroupStack.create(config));
            joining.prepare(this, metadata);
            synchronized (lock) {
                groupChannel = joining;
            }
            // Not under the lock: the first view arrives on a JGroups thread while connect() waits.
            joining.connect();
        } catch (Exception e) {
            if (joining != null) {
                joining.close();
            }
            synchronized (lock) {
                groupChannel = null;
                if (state != State.CLOSED) {
                    state = State.NEW;
                }
                resetGroupState();
            }
            throw GroupChannel.joinFailure(name, config, e);
        }
        synchronized (lock) {
            if (state == State.CLOSED) { // close() ran while this thread was joining
                joining.close();
                groupChannel = null;
                throw new IllegalStateException(name + ": membership service was closed while joining");
            }
            state = State.JOINED;
            loadTask = loadReporter.publishEvery(config.loadReportInterval());
            if (log != null) {
                // Voter upkeep also runs on a timer: a change refused during an election is tried again.
                voterTask = thread.every(VOTER_UPKEEP_PERIOD, this::upkeepVoters);
            }
            ClusterView view = group.view();
            LOG.log(Level.INFO, () -> name + ": joined cluster '" + config.clusterName() + "' as " + group.selfId()
                    + ", view " + view.id() + " " + view.names());
        }
    }

    @Override
    public void leave() {
        LeaveBarrier barrier;
        GroupChannel channel;
        String leaverId;
        synchronized (lock) {
            if (state != State.JOINED) {
                return;
            }
            state = State.LEAVING;
            channel = groupChannel;
            leaverId = group.selfId();
            // An expelled member is no longer in the others' views: nobody would acknowledge.
            barrier = new LeaveBarrier(group.expelled() ? List.of() : group.othersInView());
            leaveBarrier = barrier;
            cancelLoadTask();
            group.leaves(leaverId);
        }
        try {
            WireMessage.LeaveIntent intent = new WireMessage.LeaveIntent(WireMessage.VERSION, leaverId);
            if (!barrier.announce(channel, intent, config.leaveTimeout(), this::addressesOfIds)) {
                LOG.log(Level.WARNING, () -> name + ": leaving without acknowledgements from " + barrier.missing()
                        + " after " + config.leaveTimeout().toMillis() + " ms; they may report a failure instead of a leave");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            channel.disconnect();
            channel.close();
            synchronized (lock) {
                groupChannel = null;
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
        GroupChannel channel;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            channel = groupChannel; // still joining, or a join that failed half-way
            groupChannel = null;
            state = State.CLOSED;
            cancelLoadTask();
        }
        if (channel != null) {
            channel.close();
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
            return group.withLoads();
        }
    }

    @Override
    public int quorumBase() {
        synchronized (lock) {
            return group.quorumBase();
        }
    }

    @Override
    public NodeMetadata metadata() {
        return metadata;
    }

    @Override
    public String memberId() {
        synchronized (lock) {
            return group.selfId();
        }
    }

    @Override
    public void publishLoadNow() {
        loadReporter.publishNow();
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
        GroupChannel channel = joinedChannel();
        if (channel == null) {
            return false;
        }
        if (node != null && dest.isEmpty()) {
            return false;
        }
        return channel.sendApplicationMessage(node, node == null ? null : dest.getFirst(), payload);
    }

    private void upkeepVoters() {
        JChannel channel = channel();
        if (channel != null && log != null) {
            log.upkeep(channel.getView());
        }
    }

    /** The effective JGroups stack as XML, or null when not joined. */
    public String describeStack() {
        synchronized (lock) {
            return groupChannel == null ? null : GroupStack.describe(groupChannel.jchannel());
        }
    }

    /** The channel, for the tests' PartitionSimulator (same package); null when not joined. */
    JChannel channel() {
        synchronized (lock) {
            return groupChannel == null ? null : groupChannel.jchannel();
        }
    }

    /** Addresses of the current members with these node names. */
    List<Address> addressesOf(Collection<String> nodeNames) {
        synchronized (lock) {
            return group.addressesOf(nodeNames);
        }
    }

    String name() {
        return name;
    }

    private List<Address> addressesOfIds(Collection<String> ids) {
        synchronized (lock) {
            return group.addressesOfIds(ids);
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
            if (groupChannel == null || !(state == State.JOINING || state == State.JOINED || state == State.LEAVING)) {
                return;
            }
            GroupChannel channel = groupChannel;
            if (state == State.JOINING && group.view() == ClusterView.NONE && newView.size() == 1
                    && channel.tap().getJoinRequestsSent() > 0) {
                return; // the join went unanswered and GMS went on alone: start() fails, report nothing
            }
            GroupView.Change change = group.apply(newView, channel.jchannel().getAddress());
            change.failed().forEach(channel.probe()::markFailed);
            change.expelled().ifPresent(this::reportExpelled);
            if (change.merged()) {
                newView.getMembers().forEach(channel.probe()::forget);
                channel.probe().setSilenced(false); // a member again
            }
            if (leaveBarrier != null) {
                leaveBarrier.expect(group.othersInView());
            }
            enqueue(change.diff().events());
            logViewChange(change.previous(), change.diff());

            if (!change.diff().joined().isEmpty() && change.previous() != ClusterView.NONE) {
                if (change.coordinator()) {
                    // Members that joined after a leave was announced have not seen it: forward it,
                    // now, before this thread lets GMS cast the next view (the one removing the leaver).
                    for (String leaver : group.leaving()) {
                        sends.add(() -> channel.send(null, new WireMessage.LeaveIntent(WireMessage.VERSION, leaver)));
                    }
                }
                // So the newcomers learn the loads now: each member sends its last report to them
                // alone. A broadcast by every member at every join would cost each join N^2
                // messages, and forming a group of N N^3.
                List<Address> newcomers = change.newcomers();
                sends.add(() -> loadReporter.publishTo(newcomers));
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
                    if (leaveBarrier != null && ack.memberId().equals(group.selfId())) {
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
        GroupChannel channel;
        synchronized (lock) {
            if (groupChannel == null) {
                return;
            }
            channel = groupChannel;
            for (Address a : suspects) {
                String id = MetadataCodec.idOf(a);
                if (reportSuspicion(id)) {
                    ids.add(id);
                }
            }
        }
        if (!ids.isEmpty()) {
            // Sent before EventTap passes the SUSPECT event to GMS, so before the view that follows.
            channel.announceSuspicion(ids);
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
            if (state == State.JOINED || state == State.JOINING) {
                group.expelledBy(sender, notice).ifPresent(this::reportExpelled);
            }
        }
    }

    // ---------------------------------------------------------------- internals

    @GuardedBy("lock")
    private void reportExpelled(Expelled expelled) {
        // This member's view is no longer evidence against anyone: its notices would make members
        // of the group it yielded to think they were the ones removed.
        if (groupChannel != null) {
            groupChannel.probe().setSilenced(true);
        }
        LOG.log(Level.WARNING, () -> name + ": EXPELLED from the group (" + expelled.reason() + "): " + expelled.detail());
        enqueue(List.of(expelled));
    }

    @GuardedBy("lock")
    private boolean reportSuspicion(String id) {
        Optional<NodeSuspected> suspicion = group.suspect(id);
        suspicion.ifPresent(event -> enqueue(List.of(event)));
        return suspicion.isPresent();
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
            group.loadReported(senderId, report.seq(), load);
        }
    }

    private void onLeaveIntent(WireMessage.LeaveIntent intent) {
        GroupChannel channel;
        Address leaver;
        synchronized (lock) {
            leaver = group.addressOf(intent.memberId());
            if (leaver == null || groupChannel == null) {
                return;
            }
            if (group.leaves(intent.memberId())) {
                LOG.log(Level.INFO, () -> name + ": " + MetadataCodec.metadataOf(leaver).name() + " announced its leave");
            }
            channel = groupChannel;
        }
        channel.send(leaver, new WireMessage.LeaveAck(WireMessage.VERSION, intent.memberId()));
    }

    /** The channel while this member is joined; null otherwise (not yet, leaving, left or closed). */
    private GroupChannel joinedChannel() {
        synchronized (lock) {
            return state == State.JOINED ? groupChannel : null;
        }
    }

    /** Queued under the lock so that events keep the order of the state changes. */
    @GuardedBy("lock")
    private void enqueue(List<MembershipEvent> events) {
        thread.deliver(events);
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
        group.reset();
        loadReporter.reset();
    }

    @GuardedBy("lock")
    private void logViewChange(ClusterView previous, ViewDiff.Result diff) {
        LOG.log(Level.INFO, () -> name + ": view " + previous.id() + " -> " + diff.view().id() + " " + diff.view().names()
                + " events " + diff.events().stream().map(e -> e.getClass().getSimpleName()).toList());
    }
}
