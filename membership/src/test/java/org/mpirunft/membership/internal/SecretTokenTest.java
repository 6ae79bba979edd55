package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.jgroups.Address;
import org.jgroups.EmptyMessage;
import org.jgroups.protocols.AUTH;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

class SecretTokenTest {
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    /** The token a member with {@code secret} at {@code self} puts in its join request, as read by the receiver. */
    private static SecretToken sentBy(Address self, byte[] secret) throws Exception {
        AUTH auth = new AUTH();
        auth.setAddress(self);
        SecretToken token = new SecretToken(ClusterKeys.derive(secret, "c").authKey());
        token.setAuth(auth);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        token.writeTo(new DataOutputStream(bytes));
        assertTrue(bytes.size() == token.size(), "size() must match what writeTo writes");
        String hex = HexFormat.of().formatHex(bytes.toByteArray());
        assertFalse(hex.contains(HexFormat.of().formatHex(secret)), "the secret must not be on the wire");
        SecretToken received = new SecretToken();
        received.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        return received;
    }

    private static SecretToken verifier(byte[] secret) {
        return new SecretToken(ClusterKeys.derive(secret, "c").authKey());
    }

    @Test
    void memberWithTheSameSecretIsAccepted() throws Exception {
        Address joiner = UUID.randomUUID();
        assertTrue(verifier(SECRET).authenticate(sentBy(joiner, SECRET), new EmptyMessage().setSrc(joiner)));
    }

    @Test
    void memberWithAnotherSecretIsRefused() throws Exception {
        Address joiner = UUID.randomUUID();
        byte[] other = "another-secret-of-32-characters!".getBytes(StandardCharsets.UTF_8);
        assertFalse(verifier(SECRET).authenticate(sentBy(joiner, other), new EmptyMessage().setSrc(joiner)));
    }

    @Test
    void tokenReplayedFromAnotherAddressIsRefused() throws Exception {
        SecretToken captured = sentBy(UUID.randomUUID(), SECRET);
        assertFalse(verifier(SECRET).authenticate(captured, new EmptyMessage().setSrc(UUID.randomUUID())));
    }

    @Test
    void sameSecretInAnotherClusterGivesAnotherKey() {
        assertFalse(java.util.Arrays.equals(ClusterKeys.derive(SECRET, "a").authKey(), ClusterKeys.derive(SECRET, "b").authKey()));
        assertFalse(java.util.Arrays.equals(ClusterKeys.derive(SECRET, "a").authKey(),
                ClusterKeys.derive(SECRET, "a").encryptionKey().getEncoded()));
    }
}
