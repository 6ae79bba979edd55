package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.mpirunft.membership.Membership;

/**
 * Simulates a network partition inside JGroups, for tests and demos on one machine: a DISCARD
 * protocol inserted directly above the transport drops every message from the named members,
 * discovery, heartbeats and MERGE3 included. Applied on both sides, the two groups cannot hear
 * each other, exactly as with a cut link; FD_ALL notices within its timeout. What it does not
 * simulate: the TCP connections stay up (a real cut also leaves them up until TCP gives up), and
 * FD_SOCK2's own socket between the sides stays connected, which is what a cut link does too.
 * {@link #heal()} stops dropping; MERGE3 then finds the other side and the groups merge.
 */
public final class PartitionSimulator {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    private final MembershipImpl membership;

    private PartitionSimulator(MembershipImpl membership) {
        this.membership = membership;
    }

    public static PartitionSimulator of(Membership membership) {
        return new PartitionSimulator(MembershipImpl.of(membership));
    }

    /** Drops all messages from the members of the current view with these node names. */
    public synchronized List<Address> isolateFrom(Collection<String> nodeNames) throws Exception {
        DISCARD discard = discard(true);
        List<Address> targets = membership.addressesOf(nodeNames);
        discard.addIgnoredMembers(targets.toArray(Address[]::new));
        LOG.log(Level.INFO, () -> membership.name() + ": simulated partition, dropping messages from " + nodeNames);
        return targets;
    }

    public synchronized void heal() throws Exception {
        DISCARD discard = discard(false);
        if (discard != null) {
            discard.resetIgnoredMembers();
        }
        LOG.log(Level.INFO, () -> membership.name() + ": simulated partition healed");
    }

    private DISCARD discard(boolean create) throws Exception {
        JChannel channel = membership.channel();
        if (channel == null) {
            throw new IllegalStateException(membership.name() + ": not joined");
        }
        ProtocolStack stack = channel.getProtocolStack();
        DISCARD discard = stack.findProtocol(DISCARD.class);
        if (discard == null && create) {
            discard = new DISCARD();
            discard.setAddress(channel.getAddress());
            stack.insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
            discard.init();
            discard.start();
        }
        return discard;
    }
}
