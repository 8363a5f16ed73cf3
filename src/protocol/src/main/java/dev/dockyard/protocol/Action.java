package dev.dockyard.protocol;

import jakarta.json.bind.annotation.JsonbTypeDeserializer;
import jakarta.json.bind.annotation.JsonbTypeSerializer;

/**
 * Something an agent asks the sandbox to do. Every action may carry a hard {@code timeout} in
 * seconds (null: the executor's default) and a {@code security_risk} the agent assessed itself.
 */
@JsonbTypeSerializer(ProtocolJsonb.ActionSerializer.class)
@JsonbTypeDeserializer(ProtocolJsonb.ActionDeserializer.class)
public sealed interface Action
        permits CmdRunAction, FileReadAction, FileWriteAction, FileEditAction, IPythonRunCellAction,
                BrowseUrlAction, BrowseInteractiveAction {

    /** The protocol name of this action, the value of the dict's {@code action} key. */
    ActionType type();

    /** Hard timeout in seconds, or null for the executor's default. */
    Double timeout();

    SecurityRisk securityRisk();
}
