package org.mpirunft.common;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Has a mapper build its serializers and deserializers for a family of message types before
 * the first message of each. Jackson builds them on a type's first use, and in a daemon the
 * first use of a failure report or a restart decision is on a recovery's critical path: 10-40
 * ms per type and per process measured here. A long-lived process prepares its protocols once
 * at start instead.
 */
public final class JsonTypes {
    private static final Logger LOG = Logger.getLogger(JsonTypes.class.getName());

    private JsonTypes() {
    }

    /**
     * Prepares {@code roots} and every type under them: the permitted subtypes of a sealed type,
     * and the components of a record that are records or sealed types themselves. A type the
     * mapper cannot handle is skipped: it fails again, with its reason, when it is used.
     */
    public static void prepare(ObjectMapper mapper, Class<?>... roots) {
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(roots));
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!seen.add(type)) {
                continue;
            }
            try {
                mapper.writerFor(type);
                mapper.readerFor(type);
            } catch (RuntimeException e) {
                LOG.fine(() -> "not preparing " + type.getName() + ": " + e.getMessage());
            }
            if (type.isSealed()) {
                todo.addAll(List.of(type.getPermittedSubclasses()));
            }
            if (type.isRecord()) {
                for (RecordComponent component : type.getRecordComponents()) {
                    Class<?> inner = component.getType();
                    if (inner.isRecord() || inner.isSealed()) {
                        todo.add(inner);
                    }
                }
            }
        }
    }
}
