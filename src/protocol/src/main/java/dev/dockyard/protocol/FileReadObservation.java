package dev.dockyard.protocol;

/** The text (or image data URL) read from a file. */
public record FileReadObservation(String content, String path, String implSource) implements Observation {

    public FileReadObservation {
        content = content == null ? "" : content;
        implSource = implSource == null ? "default" : implSource;
    }

    @Override
    public String type() {
        return "read";
    }

    @Override
    public String message() {
        return "I read the file " + path + ".";
    }
}
