package dev.dockyard.protocol;

/**
 * Writes {@code content} into a file, replacing lines {@code start}..{@code end} of an existing
 * file (0 and -1: the whole file) or creating it with its parent directories.
 */
public record FileWriteAction(String path, String content, int start, int end,
                              SecurityRisk securityRisk, Double timeout) implements Action {

    public FileWriteAction {
        content = content == null ? "" : content;
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    public static FileWriteAction of(String path, String content) {
        return new FileWriteAction(path, content, 0, -1, SecurityRisk.UNKNOWN, null);
    }

    @Override
    public ActionType type() {
        return ActionType.WRITE;
    }
}
