package dev.dockyard.runtime.provisioning;

import dev.dockyard.runtime.SandboxRuntime;

/** The conversation already has a live runtime (API.md: 409 with that runtime). */
public class ConversationBusyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient SandboxRuntime existing;

    public ConversationBusyException(SandboxRuntime existing) {
        super("Conversation '" + existing.conversationId() + "' already has a live runtime: " + existing.id());
        this.existing = existing;
    }

    public SandboxRuntime existing() {
        return existing;
    }
}
