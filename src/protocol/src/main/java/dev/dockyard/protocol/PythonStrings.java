package dev.dockyard.protocol;

/**
 * Python's {@code str.strip()}, {@code lstrip()} and {@code rstrip()} without arguments, which
 * OpenHands applies to command output, cell output, editor arguments and diff lines. Python's
 * whitespace ({@code str.isspace()}) is not Java's: it includes U+0085, U+00A0, U+2007 and U+202F,
 * which {@link String#strip()} keeps.
 */
public final class PythonStrings {

    private PythonStrings() {
    }

    /** {@code str.isspace()} of one character (every Python whitespace character is in the BMP). */
    public static boolean isSpace(char c) {
        if (c <= ' ') {
            return c == ' ' || c >= '\t' && c <= '\r' || c >= '\u001c' && c <= '\u001f';
        }
        return c == '\u0085' || c == '\u00a0' || c == '\u1680' || c >= '\u2000' && c <= '\u200a'
                || c == '\u2028' || c == '\u2029' || c == '\u202f' || c == '\u205f' || c == '\u3000';
    }

    public static String strip(String s) {
        return rstrip(lstrip(s));
    }

    public static String lstrip(String s) {
        int from = 0;
        while (from < s.length() && isSpace(s.charAt(from))) {
            from++;
        }
        return s.substring(from);
    }

    public static String rstrip(String s) {
        return s.substring(0, rstripEnd(s, 0, s.length()));
    }

    /** Where {@code text[from, to)} ends once its trailing whitespace is gone. */
    public static int rstripEnd(CharSequence text, int from, int to) {
        while (to > from && isSpace(text.charAt(to - 1))) {
            to--;
        }
        return to;
    }
}
