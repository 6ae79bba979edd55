package org.mpirunft.membership.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Event;
import org.jgroups.Header;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.annotations.MBean;
import org.jgroups.annotations.ManagedAttribute;
import org.jgroups.conf.AttributeType;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/**
 * Sits directly below GMS and shows the membership service the two things GMS does not tell the
 * application.
 *
 * <ul>
 *   <li><b>Verified suspicions.</b> FD_SOCK2 and FD_ALL pass a suspicion up only on the member
 *       that is (or would become) coordinator, and VERIFY_SUSPECT2 passes it on only after it
 *       failed to reach the suspect. When that SUSPECT event goes by on its way to GMS, the
 *       service multicasts a suspect notice, before GMS can cast the view that removes the
 *       suspect.</li>
 *   <li><b>The service's own ordered messages.</b> Messages with this protocol's header are
 *       handed to the service and go no further. They travel through NAKACK2 like GMS's VIEW
 *       messages, so a notice and a later view from the same coordinator arrive in the order
 *       they were sent, at every member.</li>
 *   <li><b>Join attempts.</b> It counts the JOIN requests GMS sends: a member that sent some
 *       and still ended up alone was not answered by the coordinator it found (with encryption
 *       on, a wrong secret looks like that), see {@link #getJoinRequestsSent()}.</li>
 * </ul>
 *
 * And one thing for the transport: as a view goes down, it closes the connections to the
 * members the view removes ({@link RemovedMemberLinks}), so that a cut link cannot hold up the
 * view's installation.
 *
 * Every handler call is made in delivery order on the JGroups thread that delivers the message.
 * Its counters are managed attributes, read over JMX as JGroups' own protocols' are.
 */
@MBean(description = "Shows the membership service verified suspicions and carries its ordered notices")
public class EventTap extends Protocol {
    static {
        GroupIds.register();
    }

    /** Callbacks into the membership service; they must not block. */
    public interface Handler {
        void onVerifiedSuspicion(List<Address> suspects);

        void onTapMessage(Address sender, byte[] payload, int offset, int length);
    }

    private static final short GMS_ID = ClassConfigurator.getProtocolId(GMS.class);

    private volatile Handler handler;
    private final LongAdder joinRequests = new LongAdder();
    private final LongAdder suspicions = new LongAdder();
    private final LongAdder noticesSent = new LongAdder();
    private final LongAdder noticesDelivered = new LongAdder();
    private final LongAdder linksClosed = new LongAdder();
    /** The members of the last view that went down; on GMS's thread, which installs views one at a time. */
    private volatile List<Address> members = List.of();
    /** The transport's connections, followed from the first view on; empty if it has none to follow. Null before. */
    private volatile java.util.Optional<RemovedMemberLinks> links;

    public EventTap setHandler(Handler handler) {
        this.handler = handler;
        return this;
    }

    /** Multicasts {@code payload} to the group (not to self) through the reliable, ordered layers below. */
    public void multicast(byte[] payload) {
        Message msg = new BytesMessage(null, payload)
                .putHeader(id, new TapHeader())
                .setFlag(Message.TransientFlag.DONT_LOOPBACK);
        down_prot.down(msg);
        noticesSent.increment();
    }

    @ManagedAttribute(description = "JOIN requests GMS sent; some, and still alone, means the coordinator found did not answer",
            type = AttributeType.SCALAR)
    public int getJoinRequestsSent() {
        return joinRequests.intValue();
    }

    @ManagedAttribute(description = "Members whose suspicion, verified, went by on its way to GMS (on the coordinator only)",
            type = AttributeType.SCALAR)
    public long getVerifiedSuspicions() {
        return suspicions.sum();
    }

    @ManagedAttribute(description = "The service's ordered notices this member multicast", type = AttributeType.SCALAR)
    public long getNoticesSent() {
        return noticesSent.sum();
    }

    @ManagedAttribute(description = "The service's ordered notices from other members handed to the service", type = AttributeType.SCALAR)
    public long getNoticesDelivered() {
        return noticesDelivered.sum();
    }

    @ManagedAttribute(description = "Connections to members a view removed that this member closed before the transport's"
            + " own close (RemovedMemberLinks)", type = AttributeType.SCALAR)
    public long getRemovedMemberLinksClosed() {
        return linksClosed.sum();
    }

    /** A stopped channel may start again with a new transport server: follow that one, from its first view. */
    @Override
    public void stop() {
        super.stop();
        links = null;
        members = List.of();
    }

    /**
     * A view on its way down to the transport: the connections to the members it removes are
     * closed first, and again until it has gone down ({@link RemovedMemberLinks} says why), so
     * that the transport's own close of them cannot block the view's installation.
     */
    @Override
    public Object down(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE && evt.getArg() instanceof View next) {
            List<Address> removed = RemovedMemberLinks.removed(members, new java.util.HashSet<>(next.getMembers()));
            members = next.getMembers();
            if (links == null) {
                // The first view comes once the transport runs: its server is there to follow from now on.
                links = RemovedMemberLinks.attach(getTransport());
            }
            if (!removed.isEmpty() && links.isPresent()) {
                try (RemovedMemberLinks.Closing closing = links.get().closeWhile(removed, linksClosed)) {
                    return down_prot.down(evt);
                }
            }
        }
        return down_prot.down(evt);
    }

    @Override
    public Object down(Message msg) {
        if (msg.getHeader(GMS_ID) instanceof GMS.GmsHeader gms
                && (gms.getType() == GMS.GmsHeader.JOIN_REQ || gms.getType() == GMS.GmsHeader.JOIN_REQ_WITH_STATE_TRANSFER)) {
            joinRequests.increment();
        }
        return down_prot.down(msg);
    }

    @Override
    public Object up(Event evt) {
        if (evt.getType() == Event.SUSPECT) {
            Handler h = handler;
            Collection<Address> suspects = evt.getArg();
            if (suspects != null) {
                suspicions.add(suspects.size());
            }
            if (h != null && suspects != null && !suspects.isEmpty()) {
                h.onVerifiedSuspicion(new ArrayList<>(suspects));
            }
        }
        return up_prot.up(evt);
    }

    @Override
    public Object up(Message msg) {
        if (msg.getHeader(id) == null) {
            return up_prot.up(msg);
        }
        deliver(msg);
        return null;
    }

    @Override
    public void up(MessageBatch batch) {
        boolean ours = false;
        for (Message msg : batch) {
            if (msg.getHeader(id) != null) {
                ours = true;
                break;
            }
        }
        if (!ours) {
            up_prot.up(batch);
            return;
        }
        // Rare: keep the batch's order exactly, so a notice is seen between the messages it was
        // sent between (a VIEW before it, a VIEW after it).
        for (Message msg : batch) {
            if (msg.getHeader(id) != null) {
                deliver(msg);
            } else {
                up_prot.up(msg);
            }
        }
    }

    private void deliver(Message msg) {
        noticesDelivered.increment();
        Handler h = handler;
        if (h != null && msg.hasArray()) {
            h.onTapMessage(msg.getSrc(), msg.getArray(), msg.getOffset(), msg.getLength());
        }
    }

    /** Marks the service's messages; it carries nothing itself. */
    public static class TapHeader extends MarkerHeader {
        public TapHeader() {
        }

        @Override
        public short getMagicId() {
            return GroupIds.EVENT_TAP_HEADER;
        }

        @Override
        public Supplier<? extends Header> create() {
            return TapHeader::new;
        }

        @Override
        public String toString() {
            return "mpirunft-tap";
        }
    }
}
