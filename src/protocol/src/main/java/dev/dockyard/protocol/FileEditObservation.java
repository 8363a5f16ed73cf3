package dev.dockyard.protocol;

/** The result of a file-editor command, with the unified diff of what changed. */
public record FileEditObservation(String content, String path, boolean prevExist, String oldContent,
                                  String newContent, String implSource, String diff)
        implements Observation {

    public FileEditObservation {
        content = content == null ? "" : content;
        implSource = implSource == null ? "oh_aci" : implSource;
    }

    @Override
    public String type() {
        return "edit";
    }

    @Override
    public String message() {
        return "I edited the file " + path + ".";
    }
}
