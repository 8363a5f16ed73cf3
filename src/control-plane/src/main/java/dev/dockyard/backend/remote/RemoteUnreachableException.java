package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;

/**
 * The remote control plane gave no answer (refused, reset, timed out): the one failure a call that
 * may be repeated is retried on. An answer, even an error, is not this.
 */
public class RemoteUnreachableException extends BackendException {

    private static final long serialVersionUID = 1L;

    public RemoteUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
