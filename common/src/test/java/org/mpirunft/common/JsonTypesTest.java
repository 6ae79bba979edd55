package org.mpirunft.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ser.DefaultSerializerProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTypesTest {
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
    @JsonSubTypes({@JsonSubTypes.Type(value = Order.class, name = "order"), @JsonSubTypes.Type(value = Report.class, name = "report")})
    sealed interface Message permits Order, Report {
    }

    record Order(int version, long epoch, Detail detail) implements Message {
    }

    record Report(int version, List<String> nodes) implements Message {
    }

    record Detail(String text) {
    }

    @Test
    void buildsTheSerializersOfEveryTypeUnderASealedRoot() {
        ObjectMapper mapper = new ObjectMapper();
        int before = ((DefaultSerializerProvider) mapper.getSerializerProvider()).cachedSerializersCount();

        JsonTypes.prepare(mapper, Message.class);

        // Both subtypes and the nested record: without the preparation none is built before use.
        int built = ((DefaultSerializerProvider) mapper.getSerializerProvider()).cachedSerializersCount() - before;
        assertTrue(built >= 3, "serializers built: " + built);
    }

    @Test
    void preparedTypesStillRoundTrip() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonTypes.prepare(mapper, Message.class);

        Message order = new Order(1, 7, new Detail("x"));
        assertEquals(order, mapper.readValue(mapper.writeValueAsString(order), Message.class));
    }
}
