package dev.dockyard.protocol;

/** An action that could not be carried out; the content says why in words an agent can act on. */
public record ErrorObservation(String content, String errorId) implements Observation {

    public ErrorObservation {
        content = content == null ? "" : content;
        errorId = errorId == null ? "" : errorId;
    }

    public static ErrorObservation of(String content) {
        return new ErrorObservation(content, "");
    }

    @Override
    public String type() {
        return "error";
    }

    @Override
    public String message() {
        return content;
    }
}
