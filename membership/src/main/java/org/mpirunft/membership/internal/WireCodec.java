package org.mpirunft.membership.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.mpirunft.common.Json;
import org.mpirunft.membership.MembershipException;

/** JSON encoding of {@link WireMessage}s and of the metadata records, in one configured mapper. */
public final class WireCodec {
    /**
     * Tolerant ({@link Json#tolerantBuilder}): members of two versions meet in one group during a
     * rolling upgrade, and a field only the newer one writes must not make the older drop its
     * messages; {@link #decode} refuses a message version below 1 instead.
     */
    static final ObjectMapper MAPPER = Json.tolerantBuilder().build();

    private WireCodec() {
    }

    public static byte[] encode(Object message) {
        try {
            return MAPPER.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new MembershipException("cannot encode " + message.getClass().getSimpleName(), e);
        }
    }

    /**
     * Decodes a message from another member.
     *
     * @throws MalformedMessageException when the bytes are not a message of a version we read
     */
    public static <T> T decode(byte[] bytes, int offset, int length, Class<T> type) {
        try {
            T value = MAPPER.readValue(bytes, offset, length, type);
            if (value instanceof WireMessage message && message.v() < 1) {
                throw new MalformedMessageException("unsupported message version " + message.v());
            }
            return value;
        } catch (IOException e) {
            throw new MalformedMessageException("cannot decode " + type.getSimpleName() + ": " + e.getMessage());
        }
    }

    public static <T> T decode(byte[] bytes, Class<T> type) {
        return decode(bytes, 0, bytes.length, type);
    }

    /** Bytes that another member sent could not be read; the message is dropped and logged. */
    public static final class MalformedMessageException extends MembershipException {
        public MalformedMessageException(String message) {
            super(message);
        }
    }
}
