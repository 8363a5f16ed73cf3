package dev.dockyard.backend;

/** A runtime image could not be built; the message says which step failed and how, for a person to act on. */
public class ImageBuildException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ImageBuildException(String message) {
        super(message);
    }

    public ImageBuildException(String message, Throwable cause) {
        super(message, cause);
    }
}
