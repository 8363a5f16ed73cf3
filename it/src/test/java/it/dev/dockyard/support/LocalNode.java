package it.dev.dockyard.support;

/** The it build's local backend node (ControlPlaneSettings: {@code DOCKYARD_NODE_LOCAL1_TYPE=local}). */
public final class LocalNode {

    public static final String NAME = "local1";
    /** The user its sandboxes run as (the control plane of the it build runs as root). */
    public static final String USER = "dockyard-sandbox";

    private LocalNode() {
    }
}
