package dev.dockyard.executor.bash;

import java.util.Locale;

/**
 * OpenHands' special keys: an {@code is_input} command of three characters starting with
 * {@code C-} ({@code BashSession._is_special_key}) is given to tmux's {@code send-keys} as a key
 * name, without Enter. What tmux (3.3a–3.5a) then types, by its {@code key_string_lookup_string}
 * and {@code input_key}: a letter or one of {@code @[\]^_} its control character ({@code C-l} is
 * form feed, {@code C-C} is {@code C-c}), {@code C-?} DEL, {@code C-2} NUL, {@code C-6} 0x1e,
 * {@code C--} and {@code C-/} 0x1f; a digit or other punctuation tmux knows as a key types
 * nothing; a non-ASCII character types itself; any other character is not a key name, and tmux
 * types the three characters as text.
 */
final class ControlKey {

    /** Keys tmux keeps with a Ctrl modifier instead of turning them into a control character. */
    private static final String KEPT_WITH_CTRL = "!#()+,-.0123456789:;<=>'\r\t\u007f`/";

    private ControlKey() {
    }

    /** OpenHands' test, on the stripped command: "C-" and one more character. */
    static boolean isSpecialKey(String command) {
        return command.startsWith("C-") && command.codePointCount(0, command.length()) == 3;
    }

    /** What the key types on the terminal ("" for nothing). */
    static String typed(String key) {
        int c = key.codePointAt(2);
        if (c > 127) {
            return new String(Character.toChars(c));
        }
        if (KEPT_WITH_CTRL.indexOf(c) < 0) {
            if (c >= 'a' && c <= 'z') {
                return String.valueOf((char) (c - 96));
            }
            if (c >= '@' && c <= '_') {
                return String.valueOf((char) (c - 64));
            }
            if (c == '?') {
                return "\u007f";
            }
            return key;
        }
        return switch (c) {
            case '2' -> "\u0000";
            case '6' -> "\u001e";
            case '-', '/' -> "\u001f";
            default -> "";
        };
    }

    /** The key's name in OpenHands' "CTRL+X was sent." ({@code command[-1].upper()}). */
    static String shownName(String key) {
        return new String(Character.toChars(key.codePointAt(2))).toUpperCase(Locale.ROOT);
    }
}
