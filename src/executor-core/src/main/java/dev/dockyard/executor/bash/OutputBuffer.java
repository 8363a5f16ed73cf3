package dev.dockyard.executor.bash;

/**
 * The shell's output since the current command was sent, bounded in memory.
 *
 * <p>A command may print gigabytes ({@code yes | head -c 200000000}); only the beginning and the
 * recent end can ever reach the agent (observations are cut in the middle), so past
 * {@link #MAX_CHARS} the middle is dropped here already and only a count is kept. The end is what
 * holds the prompt marker, so it is never dropped.
 */
final class OutputBuffer {

    static final int MAX_CHARS = 1 << 20;
    static final int KEEP_HEAD = 20_000;
    static final int KEEP_TAIL = 256 * 1024;
    /** A buffer larger than this is given back once it is (nearly) empty again. */
    static final int SMALL = 64 * 1024;

    private final StringBuilder text = new StringBuilder();
    private long droppedChars;
    /** Where the next search for a prompt may start: everything before it was searched already. */
    private int scanFrom;
    /** How much of the output the agent has already been given (after a timeout, for instance). */
    private int consumed;

    void append(char[] chars, int off, int len) {
        text.append(chars, off, len);
        if (text.length() > MAX_CHARS) {
            int dropEnd = text.length() - KEEP_TAIL;
            droppedChars += dropEnd - KEEP_HEAD;
            text.delete(KEEP_HEAD, dropEnd);
            scanFrom = Math.max(KEEP_HEAD, scanFrom - (dropEnd - KEEP_HEAD));
            consumed = consumed <= KEEP_HEAD ? consumed : Math.max(KEEP_HEAD, consumed - (dropEnd - KEEP_HEAD));
        }
    }

    int length() {
        return text.length();
    }

    long droppedChars() {
        return droppedChars;
    }

    String substring(int from, int to) {
        return text.substring(from, to);
    }

    int indexOf(String s, int from) {
        return text.indexOf(s, from);
    }

    int scanFrom() {
        return scanFrom;
    }

    void scannedUpTo(int index) {
        scanFrom = Math.max(0, index);
    }

    int consumed() {
        return consumed;
    }

    void consumeTo(int index) {
        consumed = index;
    }

    /** Forgets everything before {@code index}, e.g. a finished command's output and prompt. */
    void discardBefore(int index) {
        text.delete(0, index);
        scanFrom = Math.max(0, scanFrom - index);
        consumed = Math.max(0, consumed - index);
        droppedChars = 0;
        // the megabytes a large output grew the buffer to are not kept for the next command
        if (text.length() < SMALL && text.capacity() > SMALL) {
            text.trimToSize();
        }
    }

    void clear() {
        discardBefore(text.length());
    }
}
