package dev.dockyard.protocol;

/**
 * The text (or image data URL) read from a file. A file's text is held as the file's bytes
 * ({@link Utf8Text}) when it is them unchanged: it is written into the answer's JSON from them.
 */
public record FileReadObservation(Utf8Text text, String path, String implSource) implements Observation {

    public FileReadObservation {
        text = text == null ? Utf8Text.EMPTY : text;
        implSource = implSource == null ? "default" : implSource;
    }

    public FileReadObservation(String content, String path, String implSource) {
        this(content == null ? null : Utf8Text.of(content), path, implSource);
    }

    @Override
    public String content() {
        return text.toString();
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
