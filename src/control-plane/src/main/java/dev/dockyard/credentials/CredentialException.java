package dev.dockyard.credentials;

/** A credential that cannot be made valid; the message names it, never its value. */
public class CredentialException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CredentialException(String message) {
        super(message);
    }
}
