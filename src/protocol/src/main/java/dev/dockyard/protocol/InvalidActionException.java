package dev.dockyard.protocol;

/** An action dict that does not follow PROTOCOL.md: unknown type, missing or mistyped argument. */
public class InvalidActionException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidActionException(String message) {
        super(message);
    }
}
