package dev.dockyard.protocol;

/** The output of a {@code run} action with the prompt's metadata. */
public record CmdOutputObservation(String content, String command, boolean hidden,
                                   CmdOutputMetadata metadata) implements Observation {

    public CmdOutputObservation {
        content = content == null ? "" : content;
        command = command == null ? "" : command;
        metadata = metadata == null ? CmdOutputMetadata.unknown() : metadata;
    }

    @Override
    public String type() {
        return "run";
    }

    @Override
    public String message() {
        return "Command `" + command + "` executed with exit code " + metadata.exitCode() + ".";
    }

    @Override
    public Boolean success() {
        return metadata.exitCode() == 0;
    }
}
