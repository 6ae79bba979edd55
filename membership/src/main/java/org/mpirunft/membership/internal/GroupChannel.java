package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.mpirunft.membership.JoinFailedException;
import org.mpirunft.membership.JoinRefusedException;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeMetadata;

/**
 * One incarnation of a member's JGroups channel, from {@link MembershipImpl#start} to its close:
 * the stack {@link GroupStack} builds (encryption and authentication included), wired to the
 * membership's handlers, with an address that carries the node's metadata, its MBeans (with
 * {@link MembershipConfig#jmx()}) and the replicated log bound to it; the join and its refusal;
 * the messages this member sends on it. It keeps nothing of the group: the membership does, under
 * its lock. Safe to use from any thread, as JGroups' channel is.
 */
final class GroupChannel {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    private final MembershipConfig config;
    private final String name;
    /** The replicated log, or null when the member keeps none. */
    private final RaftLog log;
    private final GroupStack.Parts parts;

    GroupChannel(MembershipConfig config, String name, RaftLog log, GroupStack.Parts parts) {
        this.config = config;
        this.name = name;
        this.log = log;
        this.parts = parts;
    }

    /**
     * Hands JGroups' callbacks to {@code handler}, names the channel and its address, registers its
     * MBeans and binds the replicated log: everything before the join.
     */
    <H extends Receiver & EventTap.Handler & ExpulsionProbe.Handler> void prepare(H handler, NodeMetadata metadata) {
        parts.tap().setHandler(handler);
        parts.probe().setHandler(handler);
        parts.channel().setReceiver(handler);
        parts.channel().addAddressGenerator(() -> MetadataCodec.newAddress(metadata));
        parts.channel().setName(name);
        registerMBeans();
        if (log != null) {
            log.bind(parts.raft());
        }
    }

    /**
     * Joins the group; returns once this member has its first view.
     *
     * @throws JoinRefusedException if a coordinator was found but never answered
     */
    void connect() throws Exception {
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
    }

    /** What a failed {@link #connect} or preparation means to the caller: refused when security said no. */
    static JoinFailedException joinFailure(String name, MembershipConfig config, Exception e) {
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

    /**
     * With {@link MembershipConfig#jmx()}, the channel's and its protocols' MBeans, from before the
     * join until the channel closes. A member whose MBeans cannot be registered works without them.
     */
    private void registerMBeans() {
        if (!config.jmx()) {
            return;
        }
        try {
            GroupMBeans.register(parts.channel(), config.clusterName(), name);
        } catch (Exception e) {
            LOG.log(Level.WARNING, () -> name + ": cannot register the group's MBeans (JMX): " + e);
        }
    }

    /** Leaves the group: GMS's leave, answered by the coordinator within its leave timeout. */
    void disconnect() {
        parts.channel().disconnect();
    }

    void close() {
        if (log != null) {
            log.unbind();
        }
        if (config.jmx()) {
            try {
                GroupMBeans.unregister(parts.channel(), config.clusterName(), name);
            } catch (Exception e) {
                LOG.log(Level.DEBUG, () -> name + ": cannot unregister the group's MBeans (JMX): " + e);
            }
        }
        parts.channel().close();
    }

    JChannel jchannel() {
        return parts.channel();
    }

    EventTap tap() {
        return parts.tap();
    }

    ExpulsionProbe probe() {
        return parts.probe();
    }

    /** Sends one of the membership's own messages to {@code dest}, or to the group when null; a failure is logged. */
    void send(Address dest, WireMessage message) {
        try {
            parts.channel().send(new BytesMessage(dest, WireCodec.encode(message)));
        } catch (Exception e) {
            LOG.log(Level.WARNING, () -> name + ": could not send " + message.getClass().getSimpleName()
                    + (dest == null ? " to the group" : " to " + dest) + ": " + e);
        }
    }

    /** Tells the group which members this one suspects, on {@link EventTap}'s way around the stack; a failure is logged. */
    void announceSuspicion(List<String> memberIds) {
        try {
            parts.tap().multicast(WireCodec.encode(new WireMessage.SuspectNotice(WireMessage.VERSION, memberIds)));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> name + ": could not announce the suspicion of " + memberIds + ": " + e);
        }
    }

    /**
     * Sends an application message, marked with an {@link AppMessageHeader}, to {@code dest}
     * ({@code node}'s address), or to the group when {@code node} is null. False if it could not.
     */
    boolean sendApplicationMessage(String node, Address dest, byte[] payload) {
        Message msg = new BytesMessage(dest, payload).putHeader(GroupIds.APP_MESSAGE_HEADER, new AppMessageHeader());
        try {
            parts.channel().send(msg);
            return true;
        } catch (Exception e) {
            // The channel closed under us (a leave or close in progress): as if not joined.
            LOG.log(Level.WARNING, () -> name + ": could not send an application message"
                    + (node == null ? " to the group" : " to " + node) + ": " + e);
            return false;
        }
    }
}
