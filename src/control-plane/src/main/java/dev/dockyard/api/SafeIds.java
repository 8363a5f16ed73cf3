package dev.dockyard.api;

import dev.dockyard.jsonp.Jsonp;
import java.util.regex.Pattern;

/**
 * The alphabet of every id a caller chooses or names (conversation ids, user ids, pool names,
 * runtime, workspace and snapshot ids, session ids): 1 to {@value #MAX_LENGTH} of ASCII letters,
 * digits and {@code . _ : @ -}, starting with a letter or digit, and no {@code ..}. An id so made
 * is safe in a path, a label, a log line and a terminal: no {@code /}, no controls, no bidi
 * overrides, no invalid UTF-8 (a JAX-RS string could only carry it as U+FFFD anyway).
 * Free text (a snapshot's name) has its own, looser check: {@link #requireText}.
 */
public final class SafeIds {

    public static final int MAX_LENGTH = 200;
    public static final String ALPHABET = "letters, digits and . _ : @ -, starting with a letter or digit, at most "
            + MAX_LENGTH;
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0," + (MAX_LENGTH - 1) + "}");

    private SafeIds() {
    }

    public static boolean isSafe(String id) {
        return id != null && ID.matcher(id).matches() && !id.contains("..");
    }

    /** {@code id} itself, else a 400 naming {@code field}; the value is not echoed (it may be hostile). */
    public static String require(String id, String field) {
        if (!isSafe(id)) {
            throw Problem.of(Problem.Kind.VALIDATION, field + " must be an id of " + ALPHABET + " characters")
                    .with("field", Jsonp.createValue(field)).toException();
        }
        return id;
    }

    /**
     * Free text a person reads (a name): 1 to {@code max} characters, none of them a control, a
     * bidi override or isolate, or half of a surrogate pair. Else a 400 naming {@code field}.
     */
    public static String requireText(String text, String field, int max) {
        if (text == null || text.isBlank() || text.length() > max || text.codePoints().anyMatch(c ->
                Character.isISOControl(c) || isBidiControl(c) || Character.getType(c) == Character.SURROGATE)) {
            throw Problem.of(Problem.Kind.VALIDATION, field + " must be 1 to " + max + " printable characters "
                    + "(no controls or bidi overrides)").toException();
        }
        return text;
    }

    /** The characters that reorder text on screen (Trojan Source): LRM/RLM, ALM, embeddings, overrides, isolates. */
    static boolean isBidiControl(int c) {
        return c == 0x200E || c == 0x200F || c == 0x061C || (c >= 0x202A && c <= 0x202E)
                || (c >= 0x2066 && c <= 0x2069);
    }
}
