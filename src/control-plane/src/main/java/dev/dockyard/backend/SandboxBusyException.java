package dev.dockyard.backend;

/**
 * The sandbox could not be frozen in time, after every try: the kernel's freezer gives up (and
 * thaws it again) while its processes keep forking or the machine is loaded. Nothing changed; a
 * try a moment later usually succeeds.
 */
public class SandboxBusyException extends BackendException {

    private static final long serialVersionUID = 1L;

    public SandboxBusyException(String message, Throwable cause) {
        super(message, cause);
    }
}
