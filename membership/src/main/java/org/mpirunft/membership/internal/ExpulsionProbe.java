package org.mpirunft.membership.internal;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Event;
import org.jgroups.Header;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.annotations.GuardedBy;
import org.jgroups.annotations.MBean;
import org.jgroups.annotations.ManagedAttribute;
import org.jgroups.annotations.Property;
import org.jgroups.conf.AttributeType;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/**
 * Tells a member that the group removed it. JGroups itself never does: a member that was hung
 * (SIGSTOP) or cut off goes on with its old view when it comes back, and only a merge, many
 * seconds later, would show anything.
 *
 * <p>The probe sits low in the stack (above discovery and encryption, below MERGE3 and the
 * failure detectors), so it sees every message a former member sends, heartbeats and MERGE3
 * INFO included. On the coordinator, a message from an address that the service marked as
 * removed-as-failed ({@link #markFailed}) and that is not in the current view is answered with
 * an {@link WireMessage.ExpelledNotice}, at most once per {@code noticeIntervalNanos} per
 * former member. The notice is sent below the reliable layers (the former member's NAKACK2 and
 * UNICAST3 state is stale); it is repeated while the former member keeps talking, so a lost one
 * does not matter. The receiving side decides with {@link ExpulsionRule}.
 *
 * <p>Its setting ({@code notice_interval}) is a JGroups property, set from the stack file, and
 * its counters are managed attributes, read over JMX as JGroups' own protocols' are.
 */
@MBean(description = "Tells members the group removed as failed that they were removed")
public class ExpulsionProbe extends Protocol {
    static {
        GroupIds.register();
    }

    /** Callback into the membership service; it must not block. */
    public interface Handler {
        void onExpelledNotice(Address sender, byte[] payload, int offset, int length);
    }

    /** How many removed members to remember; older ones are forgotten. */
    static final int MAX_REMEMBERED = 256;

    @Property(description = "The coordinator tells one removed member at most once per this interval that it was "
            + "removed, however often that member talks", type = AttributeType.TIME)
    protected volatile long notice_interval = 1000;

    private volatile Handler handler;
    private volatile View view;
    private volatile boolean silenced;

    @GuardedBy("this")
    private final Map<Address, Long> removedAsFailed = new LinkedHashMap<>();
    @GuardedBy("this")
    private final Map<Address, Long> lastNoticeNanos = new HashMap<>();
    private final LongAdder noticesSent = new LongAdder();
    private final LongAdder noticesReceived = new LongAdder();

    public ExpulsionProbe setHandler(Handler handler) {
        this.handler = handler;
        return this;
    }

    /** JGroups' {@code notice_interval}, in milliseconds. */
    public ExpulsionProbe setNoticeInterval(long millis) {
        this.notice_interval = millis;
        return this;
    }

    public long getNoticeInterval() {
        return notice_interval;
    }

    /** While silenced (this member was itself expelled), it tells nobody they were removed. */
    public ExpulsionProbe setSilenced(boolean silenced) {
        this.silenced = silenced;
        return this;
    }

    @ManagedAttribute(description = "Expelled notices this member sent, as coordinator, to removed members that kept talking",
            type = AttributeType.SCALAR)
    public long getNoticesSent() {
        return noticesSent.sum();
    }

    @ManagedAttribute(description = "Expelled notices this member received from a coordinator, handed to the service",
            type = AttributeType.SCALAR)
    public long getNoticesReceived() {
        return noticesReceived.sum();
    }

    @ManagedAttribute(description = "Members removed as failed that the probe remembers (at most " + MAX_REMEMBERED + ")")
    public synchronized int getRemovedMembers() {
        return removedAsFailed.size();
    }

    @ManagedAttribute(description = "Whether this member was itself expelled, and so tells nobody they were removed")
    public boolean isSilenced() {
        return silenced;
    }

    /** The group removed {@code address} as failed (not as a graceful leave). */
    public synchronized void markFailed(Address address) {
        removedAsFailed.put(address, System.nanoTime());
        Iterator<Address> oldest = removedAsFailed.keySet().iterator();
        while (removedAsFailed.size() > MAX_REMEMBERED) {
            oldest.next();
            oldest.remove();
        }
    }

    /** {@code address} is a member again (after a merge). */
    public synchronized void forget(Address address) {
        removedAsFailed.remove(address);
        lastNoticeNanos.remove(address);
    }

    @Override
    public Object down(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE) {
            view = evt.getArg();
        }
        return down_prot.down(evt);
    }

    @Override
    public Object up(Message msg) {
        if (msg.getHeader(id) != null) {
            deliver(msg);
            return null;
        }
        answerFormerMember(msg.getSrc());
        return up_prot.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        for (Iterator<Message> it = batch.iterator(); it.hasNext(); ) {
            Message msg = it.next();
            if (msg.getHeader(id) != null) {
                it.remove();
                deliver(msg);
            }
        }
        answerFormerMember(batch.sender());
        if (!batch.isEmpty()) {
            up_prot.up(batch);
        }
    }

    private void deliver(Message msg) {
        noticesReceived.increment();
        Handler h = handler;
        if (h != null && msg.hasArray()) {
            h.onExpelledNotice(msg.getSrc(), msg.getArray(), msg.getOffset(), msg.getLength());
        }
    }

    private void answerFormerMember(Address sender) {
        View current = view;
        Address self = local_addr;
        if (silenced || current == null || sender == null || self == null || sender.equals(self)
                || !self.equals(current.getCoord()) || current.containsMember(sender)) {
            return;
        }
        long now = System.nanoTime();
        synchronized (this) {
            if (!removedAsFailed.containsKey(sender)) {
                return;
            }
            Long last = lastNoticeNanos.get(sender);
            if (last != null && now - last < TimeUnit.MILLISECONDS.toNanos(notice_interval)) {
                return;
            }
            lastNoticeNanos.put(sender, now);
        }
        List<String> memberIds = current.getMembers().stream().map(MetadataCodec::idOf).toList();
        byte[] payload = WireCodec.encode(new WireMessage.ExpelledNotice(WireMessage.VERSION,
                current.getViewId().getId(), MetadataCodec.idOf(self), memberIds));
        Message notice = new BytesMessage(sender, payload)
                .putHeader(id, new ProbeHeader())
                .setFlag(Message.Flag.OOB)
                .setFlag(Message.TransientFlag.DONT_BLOCK);
        log.debug("%s: %s talks to us although it was removed as failed; telling it", self, sender);
        down_prot.down(notice);
        noticesSent.increment();
    }

    /** Marks an expelled notice. */
    public static class ProbeHeader extends MarkerHeader {
        public ProbeHeader() {
        }

        @Override
        public short getMagicId() {
            return GroupIds.EXPULSION_PROBE_HEADER;
        }

        @Override
        public Supplier<? extends Header> create() {
            return ProbeHeader::new;
        }

        @Override
        public String toString() {
            return "mpirunft-expelled";
        }
    }
}
