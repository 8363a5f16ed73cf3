package dev.dockyard.protocol;

/** An action dict whose {@code action} names no type of PROTOCOL.md (HTTP 400 at the executor). */
public class UnknownActionException extends InvalidActionException {

    private static final long serialVersionUID = 1L;

    public UnknownActionException(String type) {
        super("Unknown action type: " + type);
    }
}
