package dev.dockyard.protocol;

import jakarta.json.bind.annotation.JsonbTypeDeserializer;
import jakarta.json.bind.annotation.JsonbTypeSerializer;

/**
 * What the sandbox answers to an action. {@link #message()} is the human-readable one-liner
 * OpenHands puts beside the content; {@link #success()} is null where the type has no notion of it.
 */
@JsonbTypeSerializer(ProtocolJsonb.ObservationSerializer.class)
@JsonbTypeDeserializer(ProtocolJsonb.ObservationDeserializer.class)
public sealed interface Observation
        permits CmdOutputObservation, FileReadObservation, FileWriteObservation, FileEditObservation,
                IPythonRunCellObservation, BrowseObservation, ErrorObservation {

    /** The wire name, the value of the dict's {@code observation} key. */
    String type();

    String content();

    String message();

    default Boolean success() {
        return null;
    }
}
