package dev.dockyard.backend;

import java.util.Map;

/**
 * The labels of API.md on every container, volume and network Dockyard creates, and on nothing
 * else. Cleanup trusts these labels over any in-memory view.
 */
public final class Labels {

    public static final String MANAGED = "dev.dockyard.managed";
    public static final String RUNTIME_ID = "dev.dockyard.runtime-id";
    public static final String CONVERSATION_ID = "dev.dockyard.conversation-id";

    private Labels() {
    }

    public static Map<String, String> of(String runtimeId, String conversationId) {
        return Map.of(MANAGED, "true", RUNTIME_ID, runtimeId, CONVERSATION_ID, conversationId);
    }
}
