package org.mpirunft.common;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperBuilder;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The one JSON policy of mpirun-ft's messages and files: every Jackson mapper of {@code src/main}
 * is {@link #MAPPER} or built from {@link #builder()}, and one that differs says why where it is
 * built. The policy:
 * <ul>
 * <li>A message is an immutable record, its fields the record's components; a family of messages
 *     is a sealed interface whose members Jackson tells apart by a {@code type} property
 *     ({@code @JsonTypeInfo(use = NAME, property = "type")}, kebab-case names). Each message
 *     carries its format version ({@code v} or {@code version}), which its codec checks.</li>
 * <li>Compact: one object, no indentation, so a message is one line of a line protocol.</li>
 * <li>Durations and instants are text: a duration in {@link Durations}' grammar (as
 *     {@link CheckpointSchedule} writes one), an instant in ISO-8601 ({@code Instant.toString()}).
 *     No java.time module is registered, so a java.time field put on a message fails at its first
 *     encode instead of taking a format nobody chose.</li>
 * <li>Readers are strict: an unknown field, or a missing or null value for a primitive, is
 *     refused, so two sides of different versions fail loudly instead of misreading each other.
 *     Only messages that must cross versions (the daemons' group messages and replicated log,
 *     read by daemons of two versions during a rolling upgrade) are read with
 *     {@link #tolerantBuilder()}'s mappers, and their codecs check the version field.</li>
 * </ul>
 * No optional-type module here: this class is in the rank library, and a mapper that needs one
 * (the scheduler's job records hold {@code Optional}s) adds it to its own builder.
 */
public final class Json {
    /** The policy's mapper: the line protocols ({@link JsonLines}) and the launcher's event log. */
    public static final JsonMapper MAPPER = builder().build();

    private Json() {
    }

    /** A builder with the policy, for a mapper that must add to it (a module, a reader's leniency). */
    public static JsonMapper.Builder builder() {
        return policy(JsonMapper.builder());
    }

    /**
     * The policy with unknown fields ignored and a missing or null primitive read as its zero:
     * for messages a daemon of another version may have written, which a newer writer may give
     * fields this reader does not know, and an older one may lack fields it does.
     */
    public static JsonMapper.Builder tolerantBuilder() {
        return builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    }

    /** Applies the policy to a builder of any format's mapper ({@code YAMLMapper.builder()} for the config files). */
    public static <M extends ObjectMapper, B extends MapperBuilder<M, B>> B policy(B builder) {
        return builder
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(SerializationFeature.INDENT_OUTPUT);
    }
}
