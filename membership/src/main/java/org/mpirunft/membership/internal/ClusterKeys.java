package org.mpirunft.membership.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.mpirunft.membership.MembershipException;

/**
 * The keys derived from the cluster secret: one to authenticate joins (AUTH), one to encrypt
 * (SYM_ENCRYPT). Each is HMAC-SHA256(secret, purpose | cluster name), so the two never coincide
 * and a secret shared by two clusters still gives them different keys. The secret is expected
 * to be random (32 bytes from /dev/urandom); it is not a password, so no slow key stretching.
 */
public final class ClusterKeys {
    private static final String HMAC = "HmacSHA256";

    private final byte[] authKey;
    private final SecretKey encryptionKey;

    private ClusterKeys(byte[] authKey, SecretKey encryptionKey) {
        this.authKey = authKey;
        this.encryptionKey = encryptionKey;
    }

    public static ClusterKeys derive(byte[] secret, String clusterName) {
        byte[] auth = hmac(secret, "mpirun-ft auth v1|" + clusterName);
        byte[] enc = Arrays.copyOf(hmac(secret, "mpirun-ft encrypt v1|" + clusterName), 16);
        return new ClusterKeys(auth, new SecretKeySpec(enc, "AES"));
    }

    public byte[] authKey() {
        return authKey.clone();
    }

    /** AES-128 key for SYM_ENCRYPT. */
    public SecretKey encryptionKey() {
        return encryptionKey;
    }

    static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new MembershipException("HmacSHA256 is not available in this JVM", e);
        }
    }
}
