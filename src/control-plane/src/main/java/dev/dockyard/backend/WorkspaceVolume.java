package dev.dockyard.backend;

import java.time.Instant;

/**
 * A workspace volume as the backend lists it by its labels.
 *
 * @param runtimeId the runtime whose sandbox created it (a kept workspace outlives that runtime)
 * @param inUse     whether some container (running or not) mounts it
 */
public record WorkspaceVolume(String name, String runtimeId, Instant createdAt, boolean inUse) {
}
