package org.mpirunft.daemon.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.logging.Logger;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.ProtocolException;
import org.mpirunft.daemon.protocol.Wire;

/**
 * Sends one signed request to another node's daemon and returns its reply, once the reply's
 * signature shows it comes from a holder of the cluster secret answering this very request
 * ({@link PeerAuth}); anything else is {@link ErrorCode#REFUSED}. Never throws.
 */
final class PeerClient {
    private static final Logger LOG = Logger.getLogger(PeerClient.class.getName());

    private final String self;
    private final PeerAuth auth;
    private final Duration connectTimeout;
    private final Duration replyTimeout;

    PeerClient(String self, PeerAuth auth, Duration connectTimeout, Duration replyTimeout) {
        this.self = self;
        this.auth = auth;
        this.connectTimeout = connectTimeout;
        this.replyTimeout = replyTimeout;
    }

    ControlReply call(String node, InetSocketAddress address, PeerMessage request) {
        try (Socket socket = new Socket()) {
            socket.connect(address, (int) connectTimeout.toMillis());
            socket.setSoTimeout((int) replyTimeout.toMillis());
            LineChannel channel = new LineChannel(new BufferedInputStream(socket.getInputStream()), socket.getOutputStream());
            String line = channel.readLine();
            if (line == null) {
                return unreachable(node, address, "closed before its challenge");
            }
            if (!(Wire.decode(line, PeerMessage.class) instanceof PeerMessage.Challenge challenge)) {
                return unreachable(node, address, "did not open with a challenge");
            }
            if (challenge.version() != PeerMessage.VERSION) {
                return refused(node, address, "speaks peer protocol version " + challenge.version() + ", this daemon "
                        + PeerMessage.VERSION + ": run the same mpirun-ft version on every node");
            }
            String nonce = PeerAuth.nonce();
            String json = Wire.encode(request);
            channel.write(new PeerMessage.Signed(PeerMessage.VERSION, self, nonce, json, auth.signRequest(challenge.nonce(), nonce, json)));
            String reply = channel.readLine();
            if (reply == null) {
                return unreachable(node, address, "closed without a reply");
            }
            PeerMessage.SignedReply signed = signedReply(reply);
            if (signed == null || !auth.verifyReply(challenge.nonce(), nonce, signed.reply(), signed.mac())) {
                // Not from a holder of the secret, or a reply to another request sent again.
                return refused(node, address, "answered without proof of the cluster secret (an unsigned or badly signed "
                        + "reply, not trusted); check that every node has the same cluster secret and mpirun-ft version");
            }
            return Wire.decode(signed.reply(), ControlReply.class);
        } catch (IOException e) {
            return unreachable(node, address, "is unreachable: " + e);
        } catch (ProtocolException e) {
            return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.INTERNAL, "node " + node + " answered garbage: " + e.getMessage());
        }
    }

    /** The reply line as a signed reply of this version; null when it is anything else. */
    private static PeerMessage.SignedReply signedReply(String line) {
        try {
            return Wire.decode(line, PeerMessage.class) instanceof PeerMessage.SignedReply signed
                    && signed.version() == PeerMessage.VERSION && signed.reply() != null ? signed : null;
        } catch (ProtocolException notAPeerMessage) {
            return null; // a plain ControlReply: unsigned
        }
    }

    private ControlReply refused(String node, InetSocketAddress address, String why) {
        String message = "the daemon of node " + node + " at " + address.getHostString() + ":" + address.getPort() + " " + why;
        LOG.warning(self + ": " + message);
        return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.REFUSED, message);
    }

    private static ControlReply unreachable(String node, InetSocketAddress address, String why) {
        return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.UNREACHABLE,
                "the daemon of node " + node + " at " + address.getHostString() + ":" + address.getPort() + " " + why);
    }
}
