package dev.dockyard.executor.bash;

import dev.dockyard.protocol.PythonStrings;

/**
 * What a terminal shows for a command's output, as OpenHands reads it from its tmux pane
 * ({@code capture-pane -J -p}, then every line right-stripped, then the whole output stripped):
 * the executor reads the raw stream of its pseudo-terminal instead, and renders it here.
 *
 * <p>The model is tmux's (3.3a–3.5a, the versions OpenHands' runtime images install) for output
 * written line by line: lines are 1000 columns wide (the pane's width, and the width the
 * executor's terminal reports), a longer line wraps and {@code -J} joins it again; a carriage
 * return goes back to the start of the current row and what follows overwrites it; a backspace
 * moves one column left (to the end of the row above on a wrapped line); a tab moves to the next
 * multiple of 8 (never past the last column) and shows as spaces when text follows it (tmux
 * before 3.6 keeps no tab characters); vertical tab and form feed start a new line in the same
 * column; erase in line ({@code CSI K}), erase characters ({@code CSI X}) and the horizontal
 * cursor moves ({@code CSI C}, {@code D}, {@code G}, {@code `}) act on the current row. Every
 * other escape sequence (colours, cursor visibility, titles, OSC/DCS strings) and every other
 * control character is dropped, and a newline starts a line at column 0 (the pane's terminal
 * has {@code onlcr}; the executor's does not, so a bare line feed arrives).
 *
 * <p>Not modelled: moves to other lines (cursor up/down, absolute positions, clearing the
 * screen, the alternate screen of full-screen programs) and character widths (a wide character
 * counts as one column). The work is one pass over the text; the rendered text may grow past
 * the raw one only by the spaces of cursor moves, and stops growing at {@link #MAX_CHARS}.
 */
final class ScreenText {

    static final int COLUMNS = 1000;
    /** Past this many characters, cursor moves no longer pad lines with spaces (hostile output only). */
    static final int MAX_CHARS = 2 * 1024 * 1024;

    private static final char ESC = '\u001b';
    private static final char BEL = '\u0007';

    private final String raw;
    private final StringBuilder out;
    /** Where the current line starts in {@link #out}. */
    private int lineStart;
    /** The cursor in the current line: its row and column; column {@link #COLUMNS} is "wraps on the next character". */
    private int row;
    private int col;

    private ScreenText(String raw) {
        this.raw = raw;
        this.out = new StringBuilder(raw.length());
    }

    /** The output as OpenHands returns it: rendered, each line right-stripped, the whole stripped. */
    static String of(String raw) {
        return PythonStrings.strip(render(raw));
    }

    /** The text as the pane shows it, each line right-stripped (Python's whitespace). */
    static String render(String raw) {
        return new ScreenText(raw).run();
    }

    private String run() {
        int n = raw.length();
        int i = 0;
        while (i < n) {
            char c = raw.charAt(i);
            if (c >= ' ' && c != '\u007f') {
                int end = i + 1;
                while (end < n) {
                    char d = raw.charAt(end);
                    if (d < ' ' || d == '\u007f') {
                        break;
                    }
                    end++;
                }
                write(i, end);
                i = end;
                continue;
            }
            i++;
            switch (c) {
                case '\n' -> newLine(0);
                case '\u000b', '\u000c' -> newLine(Math.min(col, COLUMNS - 1));
                case '\r' -> col = 0;
                case '\b' -> backspace();
                case '\t' -> tab();
                case ESC -> i = escape(i);
                default -> {
                    // BEL, SO, SI, NUL and the other controls show nothing
                }
            }
        }
        endLine();
        return out.toString();
    }

    /** Writes {@code raw[from, to)} (no control characters) at the cursor. */
    private void write(int from, int to) {
        int at = col == COLUMNS ? (row + 1) * COLUMNS : row * COLUMNS + col;
        int length = out.length() - lineStart;
        if (at > length) {
            if (out.length() + (at - length) > MAX_CHARS) {
                at = length;
            } else {
                for (int pad = length; pad < at; pad++) {
                    out.append(' ');
                }
                length = at;
            }
        }
        int count = to - from;
        int overwritten = Math.min(count, length - at);
        if (overwritten > 0) {
            out.replace(lineStart + at, lineStart + at + overwritten, raw.substring(from, from + overwritten));
        }
        if (overwritten < count) {
            out.append(raw, from + overwritten, to);
        }
        int last = at + count - 1;
        row = last / COLUMNS;
        col = last % COLUMNS + 1;
    }

    private void newLine(int column) {
        endLine();
        out.append('\n');
        lineStart = out.length();
        row = 0;
        col = column;
    }

    /** The line is done: its trailing whitespace goes, as OpenHands' rstrip of every pane line. */
    private void endLine() {
        out.setLength(PythonStrings.rstripEnd(out, lineStart, out.length()));
    }

    private void backspace() {
        if (col == 0) {
            if (row > 0) {
                row--;
                col = COLUMNS - 1;
            }
        } else {
            col--;
        }
    }

    private void tab() {
        if (col >= COLUMNS - 1) {
            return;
        }
        col = Math.min((col / 8 + 1) * 8, COLUMNS - 1);
    }

    /**
     * The escape sequence after the ESC just read (at {@code i - 1}); returns where the text
     * goes on. An unfinished sequence at the end of the text is dropped.
     */
    private int escape(int i) {
        int n = raw.length();
        if (i >= n) {
            return n;
        }
        char kind = raw.charAt(i);
        switch (kind) {
            case '[' -> {
                return controlSequence(i + 1);
            }
            case ']', '_' -> {
                return stringEnd(i + 1, true);
            }
            case 'P', 'X', '^' -> {
                return stringEnd(i + 1, false);
            }
            case 'E' -> {
                newLine(0);
                return i + 1;
            }
            case 'D' -> {
                newLine(Math.min(col, COLUMNS - 1));
                return i + 1;
            }
            default -> {
                if (kind < ' ' || kind > '~') {
                    // a lone ESC: the character after it counts on its own
                    return i;
                }
                int end = i;
                while (end < n && raw.charAt(end) >= ' ' && raw.charAt(end) <= '/') {
                    end++; // intermediates, e.g. ESC ( B
                }
                return Math.min(end + 1, n);
            }
        }
    }

    /** After an OSC, DCS, APC, PM or SOS introducer: the string ends at ST (ESC \), at BEL for OSC and APC. */
    private int stringEnd(int from, boolean belEnds) {
        int n = raw.length();
        for (int i = from; i < n; i++) {
            char c = raw.charAt(i);
            if (c == BEL && belEnds) {
                return i + 1;
            }
            if (c == '\u0018' || c == '\u001a') {
                return i + 1; // CAN and SUB cancel it
            }
            if (c == ESC && i + 1 < n && raw.charAt(i + 1) == '\\') {
                return i + 2;
            }
        }
        return n;
    }

    /** A CSI sequence from its first parameter byte; acts on the few that move along the row. */
    private int controlSequence(int from) {
        int n = raw.length();
        int i = from;
        while (i < n && raw.charAt(i) >= '0' && raw.charAt(i) <= '?') {
            i++;
        }
        int parametersEnd = i;
        while (i < n && raw.charAt(i) >= ' ' && raw.charAt(i) <= '/') {
            i++;
        }
        if (i >= n) {
            return n;
        }
        char fin = raw.charAt(i);
        if (fin < '@' || fin > '~') {
            // not a sequence after all: the character is taken on its own
            return i;
        }
        // no private marker (<, =, >, ?) and no intermediates: a sequence of the standard set
        boolean plain = parametersEnd == i && (from == parametersEnd || raw.charAt(from) <= ';');
        if (plain) {
            int p = firstParameter(from, parametersEnd);
            switch (fin) {
                case 'K' -> eraseInLine(p);
                case 'X' -> eraseCharacters(Math.max(p, 1));
                case 'C' -> col = Math.min(Math.min(col, COLUMNS - 1) + Math.max(p, 1), COLUMNS - 1);
                case 'D' -> col = Math.max(col - Math.max(p, 1), 0);
                case 'G', '`' -> col = Math.min(Math.max(p, 1), COLUMNS) - 1;
                default -> {
                    // colours, other lines, modes: nothing a line of text shows
                }
            }
        }
        return i + 1;
    }

    /** The first numeric parameter, 0 when absent; large values are capped (they only move to an edge). */
    private int firstParameter(int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = raw.charAt(i);
            if (c < '0' || c > '9') {
                break;
            }
            value = Math.min(value * 10 + (c - '0'), 100_000);
        }
        return value;
    }

    private void eraseInLine(int mode) {
        int rowStart = row * COLUMNS;
        int rowEnd = rowStart + COLUMNS;
        int cursor = rowStart + col;
        int length = out.length() - lineStart;
        switch (mode) {
            case 0 -> blank(cursor, rowEnd, length);
            case 1 -> blank(rowStart, Math.min(cursor + 1, rowEnd), length);
            case 2 -> blank(rowStart, rowEnd, length);
            default -> {
                // not an erase tmux knows
            }
        }
    }

    private void eraseCharacters(int count) {
        int rowStart = row * COLUMNS;
        int cursor = rowStart + Math.min(col, COLUMNS - 1);
        blank(cursor, Math.min(cursor + count, rowStart + COLUMNS), out.length() - lineStart);
    }

    /** Clears columns {@code [from, to)} of the line: cut off at its end, spaces inside it. */
    private void blank(int from, int to, int length) {
        if (from >= length) {
            return;
        }
        if (to >= length) {
            out.setLength(lineStart + from);
            return;
        }
        for (int i = from; i < to; i++) {
            out.setCharAt(lineStart + i, ' ');
        }
    }
}
