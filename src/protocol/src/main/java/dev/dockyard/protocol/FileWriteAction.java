package dev.dockyard.protocol;

/**
 * Writes {@code text} into a file, replacing lines {@code start}..{@code end} of an existing
 * file (0 and -1: the whole file) or creating it with its parent directories. The text is held as
 * the request's bytes when it came in JSON ({@link Utf8Text}): a whole file is written from them.
 */
public record FileWriteAction(String path, Utf8Text text, int start, int end,
                              SecurityRisk securityRisk, Double timeout) implements Action {

    public FileWriteAction {
        text = text == null ? Utf8Text.EMPTY : text;
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    public FileWriteAction(String path, String content, int start, int end, SecurityRisk securityRisk,
                           Double timeout) {
        this(path, content == null ? null : Utf8Text.of(content), start, end, securityRisk, timeout);
    }

    public static FileWriteAction of(String path, String content) {
        return new FileWriteAction(path, content, 0, -1, SecurityRisk.UNKNOWN, null);
    }

    /** The text as a String. */
    public String content() {
        return text.toString();
    }

    @Override
    public ActionType type() {
        return ActionType.WRITE;
    }
}
