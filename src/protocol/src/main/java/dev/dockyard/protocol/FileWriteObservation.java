package dev.dockyard.protocol;

/** Confirms a write; the content is empty as in OpenHands. */
public record FileWriteObservation(String content, String path) implements Observation {

    public FileWriteObservation {
        content = content == null ? "" : content;
    }

    @Override
    public String type() {
        return "write";
    }

    @Override
    public String message() {
        return "I wrote to the file " + path + ".";
    }
}
