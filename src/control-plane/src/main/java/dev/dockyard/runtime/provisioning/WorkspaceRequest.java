package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.SandboxWorkspace;

/**
 * What a provision asks of its workspace: a disk size, a kept workspace to mount, or a snapshot to
 * start from (API ids, owned by the caller: the application layer resolves them into a
 * {@code placement} on the {@code node} holding them before the provisioner sees the request).
 *
 * @param diskMb       the workspace disk's size limit; 0 for the default
 * @param keptWorkspace the id of a kept workspace to mount, or null
 * @param fromSnapshot the id of a snapshot to start from, or null
 * @param node         where the workspace (or snapshot) is, or null for the default node
 * @param placement    the resolved workspace; null for a fresh one of {@code diskMb}
 */
public record WorkspaceRequest(int diskMb, String keptWorkspace, String fromSnapshot, String node,
                               SandboxWorkspace placement) {

    /** A fresh workspace of the default size on the default node. */
    public static final WorkspaceRequest DEFAULT = new WorkspaceRequest(0, null, null, null, null);

    public static WorkspaceRequest of(int diskMb, String keptWorkspace, String fromSnapshot) {
        return new WorkspaceRequest(diskMb, keptWorkspace, fromSnapshot, null, null);
    }

    /** A fresh workspace of the default size, on whichever node (a warm pool member's kind). */
    public boolean isFreshDefault() {
        return diskMb == 0 && keptWorkspace == null && fromSnapshot == null && placement == null;
    }

    /** The workspace the sandbox gets: the resolved one, else a fresh volume of {@code diskMb}. */
    public SandboxWorkspace sandboxWorkspace() {
        return placement != null ? placement : SandboxWorkspace.fresh(diskMb);
    }

    public WorkspaceRequest placed(String onNode, SandboxWorkspace resolved) {
        return new WorkspaceRequest(diskMb, keptWorkspace, fromSnapshot, onNode, resolved);
    }
}
