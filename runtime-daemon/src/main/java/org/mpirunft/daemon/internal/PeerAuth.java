package org.mpirunft.daemon.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proof, both ways, that a daemon-to-daemon exchange is between holders of the cluster secret:
 * HMAC-SHA256, keyed from the secret, over
 * <ul>
 *   <li>a request: the server's fresh nonce, the client's fresh nonce and the request's exact JSON;</li>
 *   <li>its reply: the same two nonces and the reply's exact JSON.</li>
 * </ul>
 * The secret never crosses the wire. A captured request cannot be replayed on another connection
 * (the server's nonce differs), and a captured reply cannot be passed off as the answer to
 * another request (the client's nonce differs). The direction is part of what is signed, so a
 * request's MAC is never a valid reply's.
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

    String signRequest(String serverNonce, String clientNonce, String request) {
        return mac("request", serverNonce, clientNonce, request);
    }

    boolean verifyRequest(String serverNonce, String clientNonce, String request, String mac) {
        return matches(signRequest(serverNonce, clientNonce, request), mac);
    }

    String signReply(String serverNonce, String clientNonce, String reply) {
        return mac("reply", serverNonce, clientNonce, reply);
    }

    boolean verifyReply(String serverNonce, String clientNonce, String reply, String mac) {
        return matches(signReply(serverNonce, clientNonce, reply), mac);
    }

    /** Nonces are base64 and JSON lines hold no raw newline, so the joined text is unambiguous. */
    private String mac(String direction, String serverNonce, String clientNonce, String json) {
        String text = direction + "\n" + serverNonce + "\n" + clientNonce + "\n" + json;
        return Base64.getEncoder().encodeToString(hmac(key, text.getBytes(StandardCharsets.UTF_8)));
    }

    private static boolean matches(String expected, String given) {
        if (given == null) {
            return false;
        }
        byte[] givenBytes;
        try {
            givenBytes = Base64.getDecoder().decode(given);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(Base64.getDecoder().decode(expected), givenBytes);
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
