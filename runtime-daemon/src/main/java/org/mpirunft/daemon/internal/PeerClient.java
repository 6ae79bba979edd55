package org.mpirunft.daemon.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.ProtocolException;
import org.mpirunft.daemon.protocol.Wire;

/** Sends one signed request to another node's daemon and returns its reply; never throws. */
final class PeerClient {
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
            String json = Wire.encode(request);
            channel.write(new PeerMessage.Signed(PeerMessage.VERSION, self, json, auth.sign(challenge.nonce(), json)));
            String reply = channel.readLine();
            if (reply == null) {
                return unreachable(node, address, "closed without a reply");
            }
            return Wire.decode(reply, ControlReply.class);
        } catch (IOException e) {
            return unreachable(node, address, "is unreachable: " + e);
        } catch (ProtocolException e) {
            return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.INTERNAL, "node " + node + " answered garbage: " + e.getMessage());
        }
    }

    private static ControlReply unreachable(String node, InetSocketAddress address, String why) {
        return new ControlReply.Failed(ControlReply.VERSION, ErrorCode.UNREACHABLE,
                "the daemon of node " + node + " at " + address.getHostString() + ":" + address.getPort() + " " + why);
    }
}
