package org.mpirunft.membership.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_ALL;
import org.jgroups.protocols.TP;
import org.jgroups.util.Util;
import org.mpirunft.membership.Membership;

/**
 * What the in-JVM scale benchmark needs from a member's JGroups side, for test code only: the
 * shipped stack with the transport swapped for JGroups' in-JVM one, a crash, and the message
 * counters JGroups keeps.
 */
public final class GroupProbes {
    private static final String SHIPPED = "/org/mpirunft/membership/ftd-stack.xml";

    private GroupProbes() {
    }

    /**
     * The shipped stack file with TCP and TCPPING replaced by SHARED_LOOPBACK (as
     * {@link PortedSharedLoopback}) and SHARED_LOOPBACK_PING, everything above them as shipped:
     * many members in one JVM without a socket per pair. Written to {@code file}. Give each member
     * its own port, so that its FD_SOCK2 listens at port + offset as a real node's does.
     */
    public static Path sharedLoopbackStack(Path file) throws IOException {
        String xml;
        try (InputStream in = GroupProbes.class.getResourceAsStream(SHIPPED)) {
            if (in == null) {
                throw new IOException("no " + SHIPPED + " on the class path");
            }
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        // FD_SOCK2 listens on the transport's bind address and port + offset: the variables stay.
        // No bundler and no queue per sender: JGroups' defaults keep a send buffer and a thread per
        // destination and a receive queue per sender, which a node has for each of its N peers but
        // one JVM would have N^2 times (a million at 1,024). NAKACK2 and UNICAST3 above keep each
        // sender's order.
        xml = replaceElement(xml, "TCP", "<" + PortedSharedLoopback.class.getName()
                + " bind_addr=\"${mpirunft.bind_addr}\" bind_port=\"${mpirunft.bind_port}\""
                + " bundler_type=\"org.jgroups.protocols.NoBundler\""
                + " message_processing_policy=\"org.jgroups.util.SubmitToThreadPool\" diag.enabled=\"false\"/>");
        xml = replaceElement(xml, "TCPPING", "<SHARED_LOOPBACK_PING/>");
        Files.writeString(file, xml);
        return file;
    }

    private static String replaceElement(String xml, String name, String replacement) {
        Matcher m = Pattern.compile("<" + name + "\\s[^>]*/>", Pattern.DOTALL).matcher(xml);
        if (!m.find()) {
            throw new IllegalStateException("the shipped stack has no <" + name + "/> to replace");
        }
        return xml.substring(0, m.start()) + replacement + xml.substring(m.end());
    }

    /**
     * Crashes the member as a killed process looks to the others: it sends and answers nothing
     * from now on and its sockets close (JGroups' own {@link Util#shutdown}: a DISCARD above the
     * transport, then the stack stopped without a leave). The member is of no use afterwards
     * but to be closed.
     */
    public static void crash(Membership member) throws Exception {
        Util.shutdown(channel(member));
    }

    /** Messages the member's transport received since the channel started (JGroups' MsgStats). */
    public static long messagesReceived(Membership member) {
        TP transport = channel(member).getProtocolStack().getTransport();
        return transport.getMessageStats().getNumMsgsReceived();
    }

    /** Messages the member's transport sent since the channel started. */
    public static long messagesSent(Membership member) {
        TP transport = channel(member).getProtocolStack().getTransport();
        return transport.getMessageStats().getNumMsgsSent();
    }

    /** FD_ALL's heartbeats received. */
    public static long heartbeatsReceived(Membership member) {
        FD_ALL fd = channel(member).getProtocolStack().findProtocol(FD_ALL.class);
        return fd == null ? 0 : fd.getHeartbeatsReceived();
    }

    /** The member's current term in the replicated log's RAFT. */
    public static long raftTerm(Membership member) {
        return channel(member).getProtocolStack().<org.jgroups.protocols.raft.RAFT>findProtocol(org.jgroups.protocols.raft.RAFT.class).currentTerm();
    }

    /**
     * Raises the member's term in the replicated log to {@code term}, as the futile votes of a
     * member cut off as the coordinator of a view do: it then drops the leader's messages.
     */
    public static void raiseRaftTerm(Membership member, long term) {
        channel(member).getProtocolStack().<org.jgroups.protocols.raft.RAFT>findProtocol(org.jgroups.protocols.raft.RAFT.class).currentTerm(term);
    }

    /** Turns JGroups' statistics on for the member's whole stack. */
    public static void enableStats(Membership member) {
        channel(member).getProtocolStack().getProtocols().forEach(p -> p.enableStats(true));
        channel(member).getProtocolStack().getTransport().getMessageStats().enable(true);
    }

    private static JChannel channel(Membership member) {
        JChannel channel = MembershipImpl.of(member).channel();
        if (channel == null) {
            throw new IllegalStateException(MembershipImpl.of(member).name() + " is not joined");
        }
        return channel;
    }
}
