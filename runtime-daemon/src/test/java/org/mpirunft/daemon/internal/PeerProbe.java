package org.mpirunft.daemon.internal;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.PeerMessage;

/** A peer that signs with the secret it is given, to show a wrong one is refused. */
public final class PeerProbe {
    private PeerProbe() {
    }

    public static ControlReply startWithSecret(byte[] secret, int peerPort) {
        PeerClient client = new PeerClient("intruder", new PeerAuth(secret), Duration.ofSeconds(2), Duration.ofSeconds(10));
        return client.call("target", new InetSocketAddress("127.0.0.1", peerPort),
                new PeerMessage.StartNodeDaemon(PeerMessage.VERSION, "job9", List.of("prted"), JobOwner.ROOT, ""));
    }
}
