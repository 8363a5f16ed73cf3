package dev.dockyard.backend;

/** The backend could not do what was asked; the message says what, for a person to act on. */
public class BackendException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BackendException(String message) {
        super(message);
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
