package org.mpirunft.daemon.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proof that a daemon-to-daemon request comes from a holder of the cluster secret: an
 * HMAC-SHA256 over the server's fresh nonce and the request's exact JSON, keyed from the secret.
 * The secret never crosses the wire, and a captured request cannot be replayed on another
 * connection because the nonce differs.
 */
final class PeerAuth {
    private static final String PURPOSE = "mpirun-ft peer v1";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    PeerAuth(byte[] clusterSecret) {
        this.key = hmac(clusterSecret, PURPOSE.getBytes(StandardCharsets.UTF_8));
    }

    static String nonce() {
        byte[] nonce = new byte[24];
        RANDOM.nextBytes(nonce);
        return Base64.getEncoder().encodeToString(nonce);
    }

    String sign(String nonce, String request) {
        return Base64.getEncoder().encodeToString(hmac(key, (nonce + "\n" + request).getBytes(StandardCharsets.UTF_8)));
    }

    boolean verify(String nonce, String request, String mac) {
        byte[] given;
        try {
            given = Base64.getDecoder().decode(mac);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(Base64.getDecoder().decode(sign(nonce, request)), given);
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
