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
 * and authenticate messages (SYM_ENCRYPT). Each is HMAC-SHA256(secret, purpose | cluster name), so the two never coincide
 * and a secret shared by two clusters still gives them different keys. The secret is expected
 * to be random (32 bytes from /dev/urandom); it is not a password, so no slow key stretching.
 */
public final class ClusterKeys {
    private static final String HMAC = "HmacSHA256";

    /** The shipped stack's cipher (SYM_ENCRYPT {@code sym_algorithm}). */
    public static final String SHIPPED_CIPHER = "ChaCha20-Poly1305";

    private final byte[] authKey;
    private final byte[] encryptionKeyBytes;

    private ClusterKeys(byte[] authKey, byte[] encryptionKeyBytes) {
        this.authKey = authKey;
        this.encryptionKeyBytes = encryptionKeyBytes;
    }

    public static ClusterKeys derive(byte[] secret, String clusterName) {
        byte[] auth = hmac(secret, "mpirun-ft auth v1|" + clusterName);
        byte[] enc = hmac(secret, "mpirun-ft encrypt v1|" + clusterName);
        return new ClusterKeys(auth, enc);
    }

    public byte[] authKey() {
        return authKey.clone();
    }

    /** The SYM_ENCRYPT key for the shipped cipher. */
    public SecretKey encryptionKey() {
        return encryptionKey(SHIPPED_CIPHER);
    }

    /**
     * The SYM_ENCRYPT key for a cipher transformation ({@code sym_algorithm}): 128 bits for AES,
     * 256 for anything else (ChaCha20-Poly1305). Its algorithm is the transformation's first part,
     * as SYM_ENCRYPT wants it: given another, it would replace its transformation with the key's.
     */
    public SecretKey encryptionKey(String transformation) {
        String algorithm = transformation.split("/", 2)[0];
        int bytes = algorithm.equals("AES") ? 16 : 32;
        return new SecretKeySpec(Arrays.copyOf(encryptionKeyBytes, bytes), algorithm);
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
