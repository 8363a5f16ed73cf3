package dev.dockyard.placement;

/**
 * No node can take a new runtime now: every node that could is full ({@link Reason#NO_CAPACITY}),
 * or the one asked for (or every one) fails its health checks ({@link Reason#NODE_UNHEALTHY}).
 * Both pass: a retry later may succeed. {@link Reason#TOO_LARGE} does not: the runtime asks for
 * more memory than any node (or the named one) may hold at all.
 */
public class PlacementRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public enum Reason {
        NO_CAPACITY, NODE_UNHEALTHY, TOO_LARGE
    }

    private final Reason reason;
    private final String node;
    private final int retryAfterSeconds;

    public PlacementRefusedException(Reason reason, String node, String detail) {
        this(reason, node, detail, 0);
    }

    private PlacementRefusedException(Reason reason, String node, String detail, int retryAfterSeconds) {
        super(detail, null, false, false);
        this.reason = reason;
        this.node = node;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** The same refusal, suggesting a retry after {@code seconds}. */
    public PlacementRefusedException retryAfter(int seconds) {
        return new PlacementRefusedException(reason, node, getMessage(), seconds);
    }

    /** When a retry may succeed (seconds; 0: not said). */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public Reason reason() {
        return reason;
    }

    /** The node the request named, or null when placement chose among all. */
    public String node() {
        return node;
    }
}
