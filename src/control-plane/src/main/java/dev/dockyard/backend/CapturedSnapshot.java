package dev.dockyard.backend;

import java.time.Instant;

/**
 * A snapshot's parts as a node knows them from their labels ({@link Labels#SNAPSHOT_ID},
 * {@link Labels#CAPTURED_BY}): the reconciler decides from its records whether the capture was
 * recorded, and from the leases whether the process that made it is still at it.
 *
 * @param process   the control-plane process that captured it; null on snapshots made before
 *                  processes were labelled
 * @param createdAt when the first of its parts was made
 */
public record CapturedSnapshot(String snapshotId, String process, Instant createdAt) {
}
