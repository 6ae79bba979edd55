package org.mpirunft.membership.internal;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.auth.AuthToken;

/**
 * AUTH token proving that the sender holds the cluster secret, without sending the secret: the
 * token is HMAC-SHA256(auth key, sender's member id). AUTH attaches it to join and merge
 * requests and, because {@code auth_coord} stays on, to the coordinator's responses, so a
 * member with the wrong secret can neither join nor be answered.
 *
 * <p>JGroups 5.5 ships no shared-secret token (SimpleToken and MD5Token were removed because they
 * sent the secret itself). Limit: without encryption, someone who can read the network could
 * replay a captured token, but only for the same member id; enable encryption on networks that
 * are not trusted.
 */
public class SecretToken extends AuthToken {
    private static final byte FORMAT = 1;
    private static final String PURPOSE = "mpirun-ft member v1|";

    /** Only on the local instance; a token read from the network has none. */
    private final byte[] key;
    private String claimedId;
    private byte[] mac;

    /** For JGroups, which creates an empty token to read one from the network. */
    public SecretToken() {
        this.key = null;
    }

    public SecretToken(byte[] authKey) {
        this.key = authKey.clone();
    }

    @Override
    public String getName() {
        return SecretToken.class.getName();
    }

    @Override
    public synchronized int size() {
        sign();
        return 1 + 2 + claimedId.getBytes(StandardCharsets.UTF_8).length + 2 + mac.length;
    }

    @Override
    public synchronized void writeTo(DataOutput out) throws IOException {
        sign();
        out.writeByte(FORMAT);
        out.writeUTF(claimedId);
        out.writeShort(mac.length);
        out.write(mac);
    }

    @Override
    public synchronized void readFrom(DataInput in) throws IOException {
        byte format = in.readByte();
        if (format != FORMAT) {
            throw new IOException("unknown SecretToken format " + format);
        }
        claimedId = in.readUTF();
        int length = in.readUnsignedShort();
        if (length > 64) {
            throw new IOException("SecretToken MAC too long: " + length);
        }
        mac = new byte[length];
        in.readFully(mac);
    }

    @Override
    public boolean authenticate(AuthToken token, Message msg) {
        if (key == null || !(token instanceof SecretToken received) || msg.getSrc() == null) {
            return false;
        }
        String claimed;
        byte[] receivedMac;
        synchronized (received) {
            claimed = received.claimedId;
            receivedMac = received.mac;
        }
        String senderId = MetadataCodec.idOf(msg.getSrc());
        if (claimed == null || receivedMac == null || !senderId.equals(claimed)) {
            return false;
        }
        return MessageDigest.isEqual(macFor(senderId), receivedMac);
    }

    /** Signs for the local address; a token read from the network keeps what it read. */
    private synchronized void sign() {
        if (key == null) {
            return;
        }
        Address self = auth == null ? null : auth.getAddress();
        String id = self == null ? "" : MetadataCodec.idOf(self);
        if (!id.equals(claimedId) || mac == null) {
            claimedId = id;
            mac = macFor(id);
        }
    }

    private byte[] macFor(String memberId) {
        return ClusterKeys.hmac(key, PURPOSE + memberId);
    }

    @Override
    public String toString() {
        return "SecretToken[" + claimedId + "]";
    }
}
