package dev.dockyard.backend;

/**
 * What a snapshot of a sandbox is made of: an image committed from its container (its file system
 * outside the workspace) and a copy of its workspace volume. Processes are not part of it.
 *
 * @param sizeBytes the committed layer plus the workspace copy, as stored
 * @param diskMb    the workspace copy's size limit (0: unbounded)
 */
public record SnapshotCapture(String image, String volume, long sizeBytes, int diskMb) {
}
