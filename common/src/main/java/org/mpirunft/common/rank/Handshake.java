package org.mpirunft.common.rank;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.mpirunft.common.JsonLines;

/**
 * The rank's side of the handshake, {@link RankMessage.Hello} out and {@link RankMessage.Welcome}
 * or {@link RankMessage.Refused} in, written and read with Jackson's streaming API rather than
 * through {@link JsonLines}.
 *
 * <p>Why a second codec: the handshake sits on the critical path of every rank start, a relaunch
 * after a failure included, and a cold JVM that first encodes or decodes a {@link RankMessage}
 * through databind builds the polymorphic machinery of the whole sealed family: 80 ms of CPU per
 * rank against 10 ms for this codec ({@code scripts/bench-handshake}), and four ranks share two
 * cores here. The ranks build the databind codecs later, off the critical path. The lines are the
 * ones {@link JsonLines} writes and reads for the same records (field names, order, the
 * {@code type} property), which {@code HandshakeTest} checks both ways, so the daemon keeps
 * using {@link JsonLines} for every message. The rules are the same too: unknown fields are
 * refused; so are missing ones.
 */
public final class Handshake {
    private static final JsonFactory FACTORY = new JsonFactory();

    private Handshake() {
    }

    /** The hello line, without the newline, as {@code JsonLines.encode(hello)} writes it. */
    public static String encode(RankMessage.Hello hello) {
        StringWriter text = new StringWriter(128);
        try (JsonGenerator out = FACTORY.createGenerator(text)) {
            out.writeStartObject();
            out.writeStringField("type", "hello");
            out.writeNumberField("version", hello.version());
            out.writeStringField("job", hello.job());
            out.writeNumberField("rank", hello.rank());
            out.writeNumberField("pid", hello.pid());
            out.writeBooleanField("replacement", hello.replacement());
            out.writeNumberField("spareOf", hello.spareOf());
            out.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode hello: " + e.getMessage(), e);
        }
        return text.toString();
    }

    /**
     * The daemon's answer to hello.
     *
     * @return a {@link RankMessage.Welcome} or a {@link RankMessage.Refused}
     * @throws JsonLines.MalformedMessageException with a one-line reason for any other line
     */
    public static RankMessage decodeAnswer(String line) {
        JsonLines.requireWithinLimit(line);
        Map<String, Object> fields = fields(line);
        Object type = fields.remove("type");
        if ("welcome".equals(type)) {
            expect(fields, "Welcome", Set.of("version", "job", "node", "scheduled", "orderedEpoch", "servedOrder",
                    "everyIterations", "flushWriters"));
            return new RankMessage.Welcome(integer(fields, "version"), string(fields, "job"), string(fields, "node"),
                    bool(fields, "scheduled"), number(fields, "orderedEpoch"), number(fields, "servedOrder"),
                    integer(fields, "everyIterations"), integer(fields, "flushWriters"));
        }
        if ("refused".equals(type)) {
            expect(fields, "Refused", Set.of("version", "reason"));
            return new RankMessage.Refused(integer(fields, "version"), string(fields, "reason"));
        }
        throw new JsonLines.MalformedMessageException("the answer to hello must be welcome or refused, got "
                + (type == null ? "no type" : "type " + type));
    }

    /** One flat object's fields: strings, longs, booleans and nulls; anything nested is refused. */
    private static Map<String, Object> fields(String line) {
        Map<String, Object> fields = new HashMap<>();
        try (JsonParser in = FACTORY.createParser(line)) {
            if (in.nextToken() != JsonToken.START_OBJECT) {
                throw new JsonLines.MalformedMessageException("not a JSON object");
            }
            for (JsonToken token = in.nextToken(); token != JsonToken.END_OBJECT; token = in.nextToken()) {
                String name = in.currentName();
                JsonToken value = in.nextToken();
                Object v = switch (value) {
                    case VALUE_STRING -> in.getText();
                    case VALUE_NUMBER_INT -> in.getLongValue();
                    case VALUE_TRUE -> Boolean.TRUE;
                    case VALUE_FALSE -> Boolean.FALSE;
                    case VALUE_NULL -> null;
                    default -> throw new JsonLines.MalformedMessageException("field \"" + name + "\" is not a string, a whole number or a boolean");
                };
                if (fields.containsKey(name)) {
                    throw new JsonLines.MalformedMessageException("field \"" + name + "\" is given twice");
                }
                fields.put(name, v);
            }
            if (in.nextToken() != null) {
                throw new JsonLines.MalformedMessageException("text after the object");
            }
        } catch (IOException e) {
            throw new JsonLines.MalformedMessageException("not valid JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        return fields;
    }

    private static void expect(Map<String, Object> fields, String type, Set<String> names) {
        for (String name : fields.keySet()) {
            if (!names.contains(name)) {
                throw new JsonLines.MalformedMessageException("not a valid " + type + ": unknown field \"" + name + "\"");
            }
        }
        for (String name : names) {
            if (fields.get(name) == null) {
                throw new JsonLines.MalformedMessageException("not a valid " + type + ": field \"" + name + "\" is missing");
            }
        }
    }

    private static String string(Map<String, Object> fields, String name) {
        if (fields.get(name) instanceof String s) {
            return s;
        }
        throw new JsonLines.MalformedMessageException("field \"" + name + "\" must be a string");
    }

    private static long number(Map<String, Object> fields, String name) {
        if (fields.get(name) instanceof Long n) {
            return n;
        }
        throw new JsonLines.MalformedMessageException("field \"" + name + "\" must be a whole number");
    }

    private static int integer(Map<String, Object> fields, String name) {
        long n = number(fields, name);
        if (n != (int) n) {
            throw new JsonLines.MalformedMessageException("field \"" + name + "\" is out of range: " + n);
        }
        return (int) n;
    }

    private static boolean bool(Map<String, Object> fields, String name) {
        if (fields.get(name) instanceof Boolean b) {
            return b;
        }
        throw new JsonLines.MalformedMessageException("field \"" + name + "\" must be true or false");
    }
}
