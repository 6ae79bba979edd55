package org.mpirunft.membership.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.TP;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.ByteArray;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.Util;
import org.mpirunft.membership.Membership;

/**
 * Test code: a protocol directly above the transport, below discovery and SYM_ENCRYPT, that sees
 * what someone on the network sees. It keeps the bytes of every message this member sends (the
 * message as the transport serializes it: headers and payload), keeps a copy of every message
 * it receives, and can send a kept message up the stack again, as a replayer on the network would.
 */
final class WireTap extends Protocol {
    private final List<byte[]> sent = new CopyOnWriteArrayList<>();
    private final List<Message> received = new CopyOnWriteArrayList<>();

    /** Inserts a tap above the transport of a joined member. */
    static WireTap insertInto(Membership membership) throws Exception {
        JChannel channel = MembershipImpl.of(membership).channel();
        WireTap tap = new WireTap();
        tap.setAddress(channel.getAddress());
        channel.getProtocolStack().insertProtocol(tap, ProtocolStack.Position.ABOVE, TP.class);
        tap.init();
        tap.start();
        return tap;
    }

    @Override
    public Object down(Message msg) {
        try {
            ByteArray bytes = Util.messageToBuffer(msg);
            sent.add(java.util.Arrays.copyOfRange(bytes.array(), bytes.offset(), bytes.offset() + bytes.length()));
        } catch (Exception e) {
            throw new IllegalStateException("cannot serialize " + msg, e);
        }
        return down_prot.down(msg);
    }

    @Override
    public Object up(Message msg) {
        keep(msg);
        return up_prot.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        batch.forEach(this::keep);
        up_prot.up(batch);
    }

    private void keep(Message msg) {
        received.add(msg.copy(true, true));
    }

    /** Forgets what was sent and received so far. */
    void clear() {
        sent.clear();
        received.clear();
    }

    /** Everything sent since the tap was inserted or cleared, message after message. */
    List<byte[]> sent() {
        return List.copyOf(sent);
    }

    /** Copies of the messages received, as they arrived (below decryption). */
    List<Message> received() {
        return List.copyOf(received);
    }

    /** Sends a copy of {@code captured} up the stack again, as if it had arrived once more. */
    void replay(Message captured) {
        up_prot.up(captured.copy(true, true));
    }
}
