package it.dev.dockyard.executor;

/** The it build's local backend node (it/pom.xml: {@code DOCKYARD_NODE_LOCAL1_TYPE=local}). */
final class LocalNode {

    static final String NAME = "local1";

    private LocalNode() {
    }
}
