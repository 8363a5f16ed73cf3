package dev.dockyard.backend;

/**
 * A node cannot give a sandbox the isolation its request asked for (a runtime class its engine
 * does not offer, GPUs it does not declare, a network it does not have): the request is at fault,
 * not the node, so this is a 400 naming the node, never a retry.
 */
public class UnsupportedIsolationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String node;

    public UnsupportedIsolationException(String node, String detail) {
        super(detail, null, false, false);
        this.node = node;
    }

    /** The node that refused. */
    public String node() {
        return node;
    }
}
