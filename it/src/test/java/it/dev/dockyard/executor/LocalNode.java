package it.dev.dockyard.executor;

/** The it build's local backend node (ControlPlaneSettings: {@code DOCKYARD_NODE_LOCAL1_TYPE=local}). */
final class LocalNode {

    static final String NAME = "local1";
    /** The user its sandboxes run as (the control plane of the it build runs as root). */
    static final String USER = "dockyard-sandbox";

    private LocalNode() {
    }
}
