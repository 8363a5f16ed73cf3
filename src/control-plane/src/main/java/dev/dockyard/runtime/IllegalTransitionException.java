package dev.dockyard.runtime;

/** A status change the life cycle does not allow, e.g. READY after the runtime was stopped. */
public class IllegalTransitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final RuntimeStatus from;
    private final RuntimeStatus to;

    public IllegalTransitionException(String runtimeId, RuntimeStatus from, RuntimeStatus to) {
        super("Runtime " + runtimeId + " cannot go from " + from + " to " + to);
        this.from = from;
        this.to = to;
    }

    public RuntimeStatus from() {
        return from;
    }

    public RuntimeStatus to() {
        return to;
    }
}
