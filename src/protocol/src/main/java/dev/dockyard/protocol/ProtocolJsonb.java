package dev.dockyard.protocol;

import jakarta.json.JsonObject;
import jakarta.json.bind.serializer.DeserializationContext;
import jakarta.json.bind.serializer.JsonbDeserializer;
import jakarta.json.bind.serializer.JsonbSerializer;
import jakarta.json.bind.serializer.SerializationContext;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonParser;
import java.lang.reflect.Type;

/**
 * JSON-B adapters that let JAX-RS resources take and return {@link Action} and
 * {@link Observation} directly; the mapping itself is {@link ProtocolJson}'s.
 */
public final class ProtocolJsonb {

    private ProtocolJsonb() {
    }

    public static final class ActionSerializer implements JsonbSerializer<Action> {
        @Override
        public void serialize(Action action, JsonGenerator generator, SerializationContext ctx) {
            generator.write(ProtocolJson.toJson(action));
        }
    }

    public static final class ActionDeserializer implements JsonbDeserializer<Action> {
        @Override
        public Action deserialize(JsonParser parser, DeserializationContext ctx, Type rtType) {
            return ProtocolJson.actionFromJson(readObject(parser));
        }
    }

    public static final class ObservationSerializer implements JsonbSerializer<Observation> {
        @Override
        public void serialize(Observation observation, JsonGenerator generator, SerializationContext ctx) {
            generator.write(ProtocolJson.toJson(observation));
        }
    }

    public static final class ObservationDeserializer implements JsonbDeserializer<Observation> {
        @Override
        public Observation deserialize(JsonParser parser, DeserializationContext ctx, Type rtType) {
            return ProtocolJson.observationFromJson(readObject(parser));
        }
    }

    private static JsonObject readObject(JsonParser parser) {
        // JSON-B hands the parser over positioned on the value's START_OBJECT
        return parser.getObject();
    }
}
