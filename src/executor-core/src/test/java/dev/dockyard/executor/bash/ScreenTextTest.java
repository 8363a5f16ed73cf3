package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The rendering of a command's output as OpenHands reads it from tmux (capture-pane -J -p of a
 * 1000-column pane, lines right-stripped, the whole stripped); the expectations are what tmux
 * 3.3a shows for the same bytes.
 */
class ScreenTextTest {

    @Test
    void shouldStripTheWholeOutputAndEveryLineAsOpenHands() {
        assertEquals("x", ScreenText.of("   x\n"));
        assertEquals("line\n  next", ScreenText.of("\n\nline   \n  next \t\n\n"));
        assertEquals("a\n\nb", ScreenText.of("a\n\nb"));
        assertEquals("x", ScreenText.of("x\u00a0\u2007\n"), "Python's whitespace, not Java's");
        assertEquals("", ScreenText.of(""));
    }

    @Test
    void shouldOverwriteAfterACarriageReturn() {
        assertEquals("100%", ScreenText.of("50%\r100%\n"));
        assertEquals("50%%", ScreenText.of("100%\r50%"));
        assertEquals("50%", ScreenText.of("100%\r\u001b[K50%"));
        assertEquals("done\nnext", ScreenText.of("10%\r20%\rdone\r\nnext"));
    }

    @Test
    void shouldDropColoursTitlesAndModes() {
        assertEquals("red plain", ScreenText.of("\u001b[1;31mred\u001b[0m plain"));
        assertEquals("text", ScreenText.of("\u001b]0;title\u0007text"));
        assertEquals("text", ScreenText.of("\u001b]8;;http://x\u001b\\text\u001b]8;;\u001b\\"));
        assertEquals("ab", ScreenText.of("\u001b[?25la\u001b(Bb\u001b[?25h\u0007"));
        assertEquals("ab", ScreenText.of("a\u0000\u000e\u000f\u007fb"));
    }

    @Test
    void shouldMoveAlongTheRowAsTmuxDoes() {
        assertEquals("a       b", ScreenText.of("a\tb"));
        assertEquals("abcdefgh" + " ".repeat(16) + "x", ScreenText.of("abcdefgh\t\tx"));
        assertEquals("abX", ScreenText.of("abc\bX"));
        assertEquals("abzdef", ScreenText.of("abcdef\u001b[3Gz"));
        assertEquals("ab   z", ScreenText.of("ab\u001b[3Cz"));
        assertEquals("abcz", ScreenText.of("abcde\u001b[2Dz\u001b[K"));
        assertEquals("a  d", ScreenText.of("abcd\u001b[2G\u001b[2X"));
        assertEquals("ab\n  cd", ScreenText.of("ab\u000bcd"));
        assertEquals("cd", ScreenText.of("ab\r\u001b[2Kcd"));
        assertEquals("   d", ScreenText.render("abcd\u001b[3G\u001b[1K"), "erasing to the cursor includes it");
    }

    @Test
    void shouldWrapAtAThousandColumnsAndJoinAgain() {
        String a1500 = "a".repeat(1500);
        assertEquals("a".repeat(1000) + "X" + "a".repeat(499), ScreenText.of(a1500 + "\rX"),
                "a carriage return goes to the start of the row, not of the line");
        assertEquals("X" + "a".repeat(999), ScreenText.of("a".repeat(1000) + "\rX"),
                "after the last column the cursor is still on that row");
        assertEquals("a".repeat(999) + "X" + "a".repeat(1), ScreenText.of("a".repeat(1001) + "\b\bX"),
                "a backspace at the start of a row goes to the end of the row above");
        assertEquals("a".repeat(999) + "b", ScreenText.of("a".repeat(999) + "\t\tb"),
                "a tab stops at the last column");
    }

    @Test
    void shouldStayFastAndBoundedOnLargeOrHostileOutput() {
        StringBuilder big = new StringBuilder();
        while (big.length() < OutputBuffer.MAX_CHARS + 300_000) {
            big.append("line ").append(big.length()).append(" of a large output\tx\n");
        }
        String raw = big.toString();
        String shown = "";
        long millis = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long start = System.nanoTime();
            shown = ScreenText.of(raw);
            millis = Math.min(millis, (System.nanoTime() - start) / 1_000_000);
        }
        System.out.println("ScreenText: " + raw.length() + " chars in " + millis + " ms");
        assertTrue(millis < 500, "rendering 1.3 MB took " + millis + " ms");
        assertTrue(shown.startsWith("line 5 of a large output        x\nline 32 "), shown.substring(0, 60));
        String hostile = "\u000b\u001b[999Cx".repeat(200_000);
        assertTrue(ScreenText.of(hostile).length() <= ScreenText.MAX_CHARS + hostile.length(),
                "past the bound, cursor moves pad nothing");
    }
}
