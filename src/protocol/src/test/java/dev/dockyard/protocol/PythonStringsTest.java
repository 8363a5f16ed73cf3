package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Python's str.strip() family and len(), as CPython 3 answers them. */
class PythonStringsTest {

    @Test
    void shouldStripWhatPythonCountsAsWhitespace() {
        // ''.join(c for c in map(chr, range(0x10000)) if c.isspace()) in CPython 3.12
        String python = "\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003"
                + "\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
        int count = 0;
        for (char c = 0; c < Character.MAX_VALUE; c++) {
            if (PythonStrings.isSpace(c)) {
                assertTrue(python.indexOf(c) >= 0, "U+" + Integer.toHexString(c));
                count++;
            }
        }
        assertEquals(python.length(), count);
        assertFalse(PythonStrings.isSpace('\u200b'));
        assertEquals("x", PythonStrings.strip("\u00a0 x\u0085\u202f"));
        assertEquals("x\u00a0", PythonStrings.lstrip("\n x\u00a0"));
        assertEquals("\n x", PythonStrings.rstrip("\n x\u00a0\u2007"));
        assertEquals("", PythonStrings.strip(" \t\n"));
    }

    @Test
    void shouldCutInTheMiddleByCodePointsAsPythonSlices() {
        String emoji = "\uD83D\uDE00";
        String text = emoji.repeat(10);
        assertEquals(text, Truncation.middle(text, 10), "10 code points are not over 10, though 20 chars are");
        String cut = Truncation.middle(emoji.repeat(11), 10);
        assertEquals(emoji.repeat(5) + Truncation.MARKER + emoji.repeat(5), cut);
    }
}
