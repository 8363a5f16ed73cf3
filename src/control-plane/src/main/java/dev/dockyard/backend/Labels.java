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
    /**
     * Which control plane (MP Config {@code dockyard.instance}) owns the resource: control planes
     * sharing one engine (a test server beside a dev server) never sweep each other's sandboxes.
     */
    public static final String CONTROL_PLANE = "dev.dockyard.control-plane";

    /**
     * On sandboxes of any image that run their own process instead of Dockyard's executor: they
     * keep their environment file, so a restart needs nothing handed in again.
     */
    public static final String PROCESS = "dev.dockyard.process";

    /**
     * On warm sandboxes booted ahead of demand: the pool they were booted for. The label stays
     * after a runtime claims the sandbox (labels cannot change): the runtime's record says whether
     * it is still a pool member.
     */
    public static final String POOL = "dev.dockyard.pool";

    /**
     * On runtime images (not containers): the image carries the executor bundle and can run as a
     * sandbox as it is. An image without it is a base, which the image builder turns into one.
     */
    public static final String RUNTIME_IMAGE = "dev.dockyard.runtime-image";
    /** On runtime images the builder made: the base image they were built from. */
    public static final String BASE_IMAGE = "dev.dockyard.base-image";

    /**
     * On workspace volumes (value {@code true}): the reconciler's orphan sweep looks only at these.
     * Their owner is in the database (a pool member's volume exists before it has a user).
     */
    public static final String WORKSPACE = "dev.dockyard.workspace";

    /** On a sandbox's own home volume (a read-only root's): removed with the sandbox, swept if it was lost. */
    public static final String HOME = "dev.dockyard.home";
    /**
     * On images that hold a user's files (a client's build, a snapshot's or fork's image): the user
     * they belong to, the only one but admins who may use them (ImageAccess). Set when Dockyard builds
     * or commits the image, over any value its Dockerfile or container had.
     */
    public static final String OWNER = "dev.dockyard.owner";
    /** On a snapshot's image and workspace copy: the snapshot's id. */
    public static final String SNAPSHOT_ID = "dev.dockyard.snapshot-id";
    /**
     * On a snapshot's image and workspace copy: the control-plane process that captured it
     * ({@code Leases#me}). The snapshot is recorded only once the capture ends, so a process killed
     * during a capture leaves an image and a volume nobody knows of; the reconciler removes those
     * whose process is dead ({@link CapturedSnapshot}).
     */
    public static final String CAPTURED_BY = "dev.dockyard.captured-by";

    /**
     * On a sandbox's own network (see {@link EgressPolicy}): its policy, as
     * {@link EgressPolicy#encode()} writes it, so its rules can be installed again (after the
     * engine's host rebooted) and removed from what the engine alone knows.
     */
    public static final String EGRESS = "dev.dockyard.egress";
    /** On the short-lived containers that install egress rules on the engine's host. */
    public static final String EGRESS_HELPER = "dev.dockyard.egress-helper";

    private Labels() {
    }

    public static Map<String, String> of(String runtimeId, String conversationId, String controlPlane) {
        return Map.of(MANAGED, "true", RUNTIME_ID, runtimeId, CONVERSATION_ID, conversationId,
                CONTROL_PLANE, controlPlane);
    }
}
