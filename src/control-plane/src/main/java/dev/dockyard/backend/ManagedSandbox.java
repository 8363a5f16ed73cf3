package dev.dockyard.backend;

import java.time.Instant;

/** A sandbox as the backend lists it by its labels, whatever the database says. */
public record ManagedSandbox(String name, String runtimeId, String conversationId, Instant createdAt,
                             boolean running) {
}
