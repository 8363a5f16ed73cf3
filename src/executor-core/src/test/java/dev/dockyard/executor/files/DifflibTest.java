package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * OpenHands' get_diff, whose answers below are Python's own (openhands-aci 0.3.2's get_diff run on
 * the same texts); a Myers diff answers the first two differently.
 */
class DifflibTest {

    @Test
    void shouldLineUpAnAmbiguousChangeAsDifflibDoes() {
        String before = "return 1\nb\nb\n\nreturn 1\nb\na\n\nreturn 1\n";
        String after = "return 1\nb\nb\n\nreturn 1\n    pass\na\ndef f():\n\nb\nreturn 1";
        assertEquals("--- /p\n+++ /p\n@@ -5,0 +6,4 @@\n+    pass\n+a\n+def f():\n+\n@@ -7,2 +10,0 @@\n-a\n-\n"
                + "@@ -10 +11,0 @@\n-", FileEditor.diff("/p", before, after));
    }

    @Test
    void shouldTreatLinesInOverOnePercentOfALongFileAsJunk() {
        String before = "{\n".repeat(3) + "a\n" + "}\n".repeat(3) + "b\n".repeat(200) + "c\n";
        String after = "{\n".repeat(3) + "A\n" + "}\n".repeat(2) + "b\n".repeat(199) + "d\nc\n";
        assertEquals("--- /p\n+++ /p\n@@ -4 +4 @@\n-a\n+A\n@@ -7,201 +7,200 @@\n-}\n" + "-b\n".repeat(200)
                + "+b\n".repeat(199) + "+d", FileEditor.diff("/p", before, after));
    }

    @Test
    void shouldWriteOneLineAndEmptyRangesAsDifflibDoes() {
        assertEquals("--- /p\n+++ /p\n@@ -0,0 +1,3 @@\n+a\n+b\n+c", FileEditor.diff("/p", "", "a\nb\nc\n"));
        assertEquals("--- /p\n+++ /p\n@@ -1,0 +2 @@\n+two", FileEditor.diff("/p", "one\nthree\n", "one\ntwo\nthree\n"));
        assertEquals("--- /p\n+++ /p\n@@ -2 +2 @@\n-b\n+B", FileEditor.diff("/p", "a\nb  \n", "a\nB\n"),
                "lines right-stripped");
        assertEquals("", FileEditor.diff("/p", "same\n", "same\n"));
    }
}
