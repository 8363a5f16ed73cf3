package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The lint's reading of flake8 and its choice of the errors a change introduced, without flake8 or python3. */
class EditLinterTest {

    private static EditLinter.Issue issue(int line, int column, String message) {
        return new EditLinter.Issue(line, column, message);
    }

    @Test
    void shouldReadFlake8LinesAsOpenHandsDoes() {
        assertEquals(List.of(issue(2, 7, "F821 undefined name 'y'"), issue(3, 1, "E999 SyntaxError: invalid syntax"),
                        issue(4, 1, "x E113 unexpected indentation")),
                EditLinter.flake8("/w/new.a.py:2:7: F821 undefined name 'y'\n"
                        + "/w/new.a.py:3:1: E999 SyntaxError: invalid syntax\n"
                        + "/w/new.a.py:4:x: E113 unexpected indentation\n"
                        + "/w/new.a.py:n:1: skipped without a line number\nnot flake8\n"));
    }

    @Test
    void shouldReportErrorsOnChangedLinesAndNewOnesElsewhereOnly() {
        List<String> before = EditLinter.lines("import os\nx = y\nz = 1\n");
        List<String> after = EditLinter.lines("import os\nx = y\nz = w\n");
        List<EditLinter.Issue> introduced = EditLinter.introduced(List.of(issue(2, 5, "F821 undefined name 'y'")),
                List.of(issue(3, 5, "F821 undefined name 'w'"), issue(2, 5, "F821 undefined name 'y'")), before,
                after);
        assertEquals(List.of(issue(3, 5, "F821 undefined name 'w'")), introduced,
                "the error line 2 had before the change is not the change's");
    }

    @Test
    void shouldReadLinesAsPythonsReadlines() {
        assertEquals(List.of("a\n", "b\n", "c"), EditLinter.lines("a\r\nb\rc"));
        assertEquals(List.of(), EditLinter.lines(""));
    }
}
