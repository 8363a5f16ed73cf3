package dev.dockyard.backend;

/**
 * The sandbox could not be frozen because it is not running: its main process exited (its
 * executor was killed or crashed) or the engine stopped it. Not a backend failure but a runtime
 * being recovered: the reconciler starts a stopped sandbox of a live runtime again.
 */
public class SandboxNotRunningException extends BackendException {

    private static final long serialVersionUID = 1L;

    public SandboxNotRunningException(String message, Throwable cause) {
        super(message, cause);
    }
}
