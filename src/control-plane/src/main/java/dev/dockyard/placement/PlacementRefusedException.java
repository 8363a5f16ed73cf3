package dev.dockyard.placement;

/**
 * No node can take a new runtime now: every node that could is full ({@link Reason#NO_CAPACITY}),
 * or the one asked for (or every one) fails its health checks ({@link Reason#NODE_UNHEALTHY}).
 * Both pass: a retry later may succeed.
 */
public class PlacementRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public enum Reason {
        NO_CAPACITY, NODE_UNHEALTHY
    }

    private final Reason reason;
    private final String node;

    public PlacementRefusedException(Reason reason, String node, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
        this.node = node;
    }

    public Reason reason() {
        return reason;
    }

    /** The node the request named, or null when placement chose among all. */
    public String node() {
        return node;
    }
}
