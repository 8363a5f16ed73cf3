package dev.dockyard.protocol;

/**
 * The observation length rule of PROTOCOL.md: output longer than 30,000 characters is cut in the
 * middle, keeping 15,000 at each end with a marker between, so agents see both how a command
 * started and how it ended. Lengths are counted in code points, as Python's {@code len} counts
 * them, so a text with characters outside the BMP is cut where OpenHands cuts it.
 */
public final class Truncation {

    public static final int MAX_CHARS = 30_000;
    public static final String MARKER = "\n[... Observation truncated due to length ...]\n";

    private Truncation() {
    }

    public static String middle(String content) {
        return middle(content, MAX_CHARS);
    }

    public static String middle(String content, int maxChars) {
        if (content == null || content.length() <= maxChars) {
            return content;
        }
        int codePoints = content.codePointCount(0, content.length());
        if (codePoints <= maxChars) {
            return content;
        }
        int half = maxChars / 2;
        return content.substring(0, content.offsetByCodePoints(0, half)) + MARKER
                + content.substring(content.offsetByCodePoints(content.length(), -half));
    }
}
