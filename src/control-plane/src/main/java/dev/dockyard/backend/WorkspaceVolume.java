package dev.dockyard.backend;

import java.time.Instant;

/**
 * A workspace volume as the backend lists it by its labels.
 *
 * @param runtimeId  the runtime whose sandbox created it (a kept workspace outlives that runtime)
 * @param inUse      whether some container (running or not) mounts it
 * @param snapshotId on a snapshot's workspace copy: the snapshot's id, else null
 * @param capturedBy on a snapshot's workspace copy: the process that captured it ({@link Labels#CAPTURED_BY})
 */
public record WorkspaceVolume(String name, String runtimeId, Instant createdAt, boolean inUse, String snapshotId,
                              String capturedBy) {

    /** A volume that is no snapshot's copy. */
    public WorkspaceVolume(String name, String runtimeId, Instant createdAt, boolean inUse) {
        this(name, runtimeId, createdAt, inUse, null, null);
    }
}
