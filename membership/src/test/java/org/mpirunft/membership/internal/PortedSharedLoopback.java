package org.mpirunft.membership.internal;

import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.stack.IpAddress;

/**
 * JGroups' in-JVM transport, with the member's configured address and port as its physical
 * address. SHARED_LOOPBACK gives every member 127.0.0.1:1, so each FD_SOCK2 (which listens at
 * its physical port + offset) would take the next free port of one shared range, and every
 * connection to a neighbour would have to try that range port by port: slow enough at a
 * thousand members to time out and suspect live members. With its own port, a member's
 * FD_SOCK2 is where a real node's would be.
 */
public class PortedSharedLoopback extends SHARED_LOOPBACK {
    @Override
    public void init() throws Exception {
        super.init();
        physical_addr = new IpAddress(bind_addr, bind_port);
    }
}
