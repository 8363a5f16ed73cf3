package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What tmux 3.3a's send-keys types for OpenHands' special keys (key-string.c, input-keys.c). */
class ControlKeyTest {

    @Test
    void shouldRecogniseOpenHandsSpecialKeys() {
        assertTrue(ControlKey.isSpecialKey("C-l"));
        assertTrue(ControlKey.isSpecialKey("C-\uD83D\uDE00"), "three characters as Python counts them");
        assertFalse(ControlKey.isSpecialKey("C-"));
        assertFalse(ControlKey.isSpecialKey("C-cc"));
        assertFalse(ControlKey.isSpecialKey("c-c"));
    }

    @Test
    void shouldTypeWhatTmuxTypes() {
        assertEquals("\u0003", ControlKey.typed("C-c"));
        assertEquals("\u0003", ControlKey.typed("C-C"));
        assertEquals("\u000c", ControlKey.typed("C-l"));
        assertEquals("\u001b", ControlKey.typed("C-["));
        assertEquals("\u001c", ControlKey.typed("C-\\"));
        assertEquals("\u0000", ControlKey.typed("C-@"));
        assertEquals("\u007f", ControlKey.typed("C-?"));
        assertEquals("\u0000", ControlKey.typed("C-2"));
        assertEquals("\u001f", ControlKey.typed("C-/"));
        assertEquals("", ControlKey.typed("C-1"), "a digit tmux knows as a key types nothing");
        assertEquals("C-{", ControlKey.typed("C-{"), "not a key name: tmux types the text");
        assertEquals("\u00e9", ControlKey.typed("C-\u00e9"));
        assertEquals("L", ControlKey.shownName("C-l"));
        assertEquals("SS", ControlKey.shownName("C-\u00df"), "Python's upper()");
    }
}
