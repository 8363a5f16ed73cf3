package dev.dockyard.backend;

/**
 * The node's engine did not answer at all: its socket or port refused the connection, or the
 * connection broke (the engine is restarting, stopped, or cut off). Whether it acted on the call is
 * not known (a broken connection may lose an answer to a call it carried out); the same call once
 * the engine is back usually succeeds, so callers answer 503 with {@code Retry-After}, and a
 * runtime's own record (stopped, paused) stands while the engine catches up (the reconciler
 * removes what a stopped runtime left once the engine answers again).
 */
public class EngineUnreachableException extends BackendException {

    private static final long serialVersionUID = 1L;

    /** Seconds a caller is asked to wait: an engine restarting answers again within seconds. */
    public static final int RETRY_AFTER_SECONDS = 5;

    public EngineUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether {@code failure} or one of its causes is an engine that did not answer. */
    public static boolean in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof EngineUnreachableException) {
                return true;
            }
        }
        return false;
    }
}
