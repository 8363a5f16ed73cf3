package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.protocol.FileEditAction;
import dev.dockyard.protocol.FileEditObservation;
import dev.dockyard.protocol.FileReadObservation;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.SecurityRisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The oh_aci editor's commands and texts, on a real file system. */
class FileEditorTest {

    @TempDir
    Path workspace;

    private FileEditor editor;

    @BeforeEach
    void setUp() {
        editor = new FileEditor(new PathGuard(workspace, false));
    }

    private FileEditObservation edit(String command, String path, String fileText, String oldStr, String newStr,
                                     Integer insertLine) {
        Observation obs = editor.edit(new FileEditAction(path, command, fileText, oldStr, newStr, insertLine, null, null,
                1, -1, "oh_aci", SecurityRisk.UNKNOWN, null), workspace);
        return assertInstanceOf(FileEditObservation.class, obs);
    }

    private String file(String name) {
        return workspace.resolve(name).toString();
    }

    @Test
    void shouldCreateAFileWithDiffAndRefuseToOverwriteIt() throws Exception {
        FileEditObservation created = edit("create", file("a.py"), "print(1)\nprint(2)\n", null, null, null);
        assertEquals("File created successfully at: " + file("a.py"), created.content());
        assertFalse(created.prevExist());
        assertEquals("--- " + file("a.py") + "\n+++ " + file("a.py") + "\n@@ -0,0 +1,2 @@\n+print(1)\n+print(2)",
                created.diff());
        assertEquals("print(1)\nprint(2)\n", Files.readString(workspace.resolve("a.py")));
        FileEditObservation again = edit("create", file("a.py"), "x", null, null, null);
        assertEquals("ERROR:\nInvalid `path` parameter: " + file("a.py") + ". File already exists at: " + file("a.py")
                + ". Cannot overwrite files using command `create`.", again.content());
    }

    @Test
    void shouldReplaceAUniqueStringAndShowASnippet() throws Exception {
        Files.writeString(workspace.resolve("s.txt"), "This is a sample file.\nThis file is for testing purposes.");
        FileEditObservation obs = edit("str_replace", file("s.txt"), null, "sample", "nice", null);
        assertEquals("The file " + file("s.txt") + " has been edited. Here's the result of running `cat -n` on a "
                + "snippet of " + file("s.txt") + ":\n     1\tThis is a nice file.\n     2\tThis file is for testing "
                + "purposes.\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
                obs.content());
        // OpenHands' server never sets prev_exist on an oh_aci edit
        assertFalse(obs.prevExist());
        assertEquals("sample", obs.oldContent());
        assertEquals("nice", obs.newContent());
        assertTrue(obs.diff().contains("-This is a sample file.\n+This is a nice file."), obs.diff());
    }

    @Test
    void shouldRefuseStrReplaceWithTwoMatches() throws Exception {
        Files.writeString(workspace.resolve("t.txt"), "foo\nbar\nfoo\n");
        FileEditObservation obs = edit("str_replace", file("t.txt"), null, "foo", "baz", null);
        assertEquals("ERROR:\nNo replacement was performed. Multiple occurrences of old_str `foo` in lines [1, 3]. "
                + "Please ensure it is unique.", obs.content());
        assertEquals("", obs.diff());
        assertEquals("foo\nbar\nfoo\n", Files.readString(workspace.resolve("t.txt")));
    }

    @Test
    void shouldRefuseStrReplaceWithoutAMatchOrWithoutAChange() throws Exception {
        Files.writeString(workspace.resolve("t.txt"), "foo\n");
        assertEquals("ERROR:\nNo replacement was performed, old_str `nope` did not appear verbatim in " + file("t.txt")
                + ".", edit("str_replace", file("t.txt"), null, "nope", "x", null).content());
        assertEquals("ERROR:\nInvalid `new_str` parameter: foo. No replacement was performed. `new_str` and `old_str` "
                + "must be different.", edit("str_replace", file("t.txt"), null, "foo", "foo", null).content());
    }

    @Test
    void shouldInsertAtTheTopAndAfterALine() throws Exception {
        Files.writeString(workspace.resolve("i.txt"), "This is a test file.\nThis file is for testing purposes.\n");
        FileEditObservation obs = edit("insert", file("i.txt"), null, null, "Inserted line", 1);
        assertEquals("The file " + file("i.txt") + " has been edited. Here's the result of running `cat -n` on a "
                + "snippet of the edited file:\n     1\tThis is a test file.\n     2\tInserted line\n     3\tThis file "
                + "is for testing purposes.\n     4\t\nReview the changes and make sure they are as expected (correct "
                + "indentation, no duplicate lines, etc). Edit the file again if necessary.", obs.content());
        edit("insert", file("i.txt"), null, null, "#!/top", 0);
        assertEquals("#!/top\nThis is a test file.\nInserted line\nThis file is for testing purposes.\n",
                Files.readString(workspace.resolve("i.txt")));
        assertEquals("ERROR:\nInvalid `insert_line` parameter: 9. It should be within the range of allowed values: "
                + "[0, 4]", edit("insert", file("i.txt"), null, null, "x", 9).content());
    }

    @Test
    void shouldUndoTenEditsInOrderThenSayThereIsNoHistory() throws Exception {
        edit("create", file("u.txt"), "v0\n", null, null, null);
        for (int i = 1; i <= 10; i++) {
            edit("str_replace", file("u.txt"), null, "v" + (i - 1), "v" + i, null);
        }
        assertEquals("v10\n", Files.readString(workspace.resolve("u.txt")));
        for (int i = 9; i >= 0; i--) {
            FileEditObservation undone = edit("undo_edit", file("u.txt"), null, null, null, null);
            assertTrue(undone.content().startsWith("Last edit to " + file("u.txt") + " undone successfully. "),
                    undone.content());
            assertEquals("v" + i + "\n", Files.readString(workspace.resolve("u.txt")));
        }
        // ten steps back reach v0; the create itself was the eleventh and fell out of the history
        assertEquals("ERROR:\nNo edit history found for " + file("u.txt") + ".",
                edit("undo_edit", file("u.txt"), null, null, null, null).content());
    }

    @Test
    void shouldForgetTheLeastRecentlyEditedFilesBeyondTheFileLimit() throws Exception {
        int files = FileEditor.MAX_HISTORY_FILES + 6;
        for (int i = 0; i < files; i++) {
            Files.writeString(workspace.resolve("f" + i + ".txt"), "old\n");
            edit("str_replace", file("f" + i + ".txt"), null, "old", "new", null);
        }
        for (int i = 0; i < 6; i++) {
            assertEquals("ERROR:\nNo edit history found for " + file("f" + i + ".txt") + ".",
                    edit("undo_edit", file("f" + i + ".txt"), null, null, null, null).content());
        }
        for (int i = 6; i < files; i++) {
            edit("undo_edit", file("f" + i + ".txt"), null, null, null, null);
            assertEquals("old\n", Files.readString(workspace.resolve("f" + i + ".txt")));
        }
    }

    @Test
    void shouldKeepTenStepsWithinTheByteBudgetAndDropTheLeastRecentFileBeyondIt() throws Exception {
        editor = new FileEditor(new PathGuard(workspace, false), 100, 35_000);
        String body = "x".repeat(1_000) + "\n";
        Files.writeString(workspace.resolve("a.txt"), body + "a0\n");
        for (int i = 1; i <= 12; i++) {
            edit("str_replace", file("a.txt"), null, "a" + (i - 1), "a" + i, null);
        }
        Files.writeString(workspace.resolve("b.txt"), body.repeat(5) + "b0\n");
        for (int i = 1; i <= 3; i++) {
            edit("str_replace", file("b.txt"), null, "b" + (i - 1), "b" + i, null);
        }
        // a: 10 steps of ~1 KB, b: 3 steps of ~5 KB: within 35,000 characters, everything is kept
        for (int i = 2; i >= 0; i--) {
            edit("undo_edit", file("b.txt"), null, null, null, null);
            assertTrue(Files.readString(workspace.resolve("b.txt")).endsWith("b" + i + "\n"));
        }
        for (int i = 1; i <= 3; i++) {
            edit("str_replace", file("b.txt"), null, "b" + (i - 1), "b" + i, null);
        }
        edit("undo_edit", file("a.txt"), null, null, null, null);
        assertTrue(Files.readString(workspace.resolve("a.txt")).endsWith("a11\n"));
        // b now grows past the budget: a, the least recently edited, loses its history first
        for (int i = 4; i <= 6; i++) {
            edit("str_replace", file("b.txt"), null, "b" + (i - 1), "b" + i, null);
        }
        assertEquals("ERROR:\nNo edit history found for " + file("a.txt") + ".",
                edit("undo_edit", file("a.txt"), null, null, null, null).content());
        for (int i = 5; i >= 0; i--) {
            edit("undo_edit", file("b.txt"), null, null, null, null);
            assertTrue(Files.readString(workspace.resolve("b.txt")).endsWith("b" + i + "\n"));
        }
    }

    @Test
    void shouldKeepTheNewestStepOfAFileLargerThanTheBudget() throws Exception {
        editor = new FileEditor(new PathGuard(workspace, false), 100, 1_000);
        Files.writeString(workspace.resolve("big.txt"), "y".repeat(2_000) + "\nc0\n");
        edit("str_replace", file("big.txt"), null, "c0", "c1", null);
        edit("str_replace", file("big.txt"), null, "c1", "c2", null);
        edit("undo_edit", file("big.txt"), null, null, null, null);
        assertTrue(Files.readString(workspace.resolve("big.txt")).endsWith("c1\n"));
        assertEquals("ERROR:\nNo edit history found for " + file("big.txt") + ".",
                edit("undo_edit", file("big.txt"), null, null, null, null).content());
    }

    @Test
    void shouldViewNumberedLinesAndRanges() throws Exception {
        Files.writeString(workspace.resolve("v.txt"), "a\nb\nc\nd\n");
        FileReadObservation all = (FileReadObservation) editor.view(file("v.txt"), null, workspace);
        // split at every newline, as openhands-aci does: the final newline shows as an empty line 5
        assertEquals("Here's the result of running `cat -n` on " + file("v.txt") + ":\n     1\ta\n     2\tb\n     3\tc\n"
                + "     4\td\n     5\t\n", all.content());
        assertEquals("oh_aci", all.implSource());
        FileReadObservation range = (FileReadObservation) editor.view(file("v.txt"), List.of(2, 3), workspace);
        assertEquals("Here's the result of running `cat -n` on " + file("v.txt") + ":\n     2\tb\n     3\tc\n",
                range.content());
        FileReadObservation toEnd = (FileReadObservation) editor.view(file("v.txt"), List.of(3, -1), workspace);
        assertTrue(toEnd.content().endsWith("     3\tc\n     4\td\n"), toEnd.content());
        FileReadObservation bad = (FileReadObservation) editor.view(file("v.txt"), List.of(0, 2), workspace);
        assertEquals("ERROR:\nInvalid `view_range` parameter: [0, 2]. Its first element `0` should be within the "
                + "range of lines of the file: [1, 4].", bad.content());
        FileReadObservation beyond = (FileReadObservation) editor.view(file("v.txt"), List.of(3, 9), workspace);
        assertEquals("NOTE: We only show up to 4 since there're only 4 lines in this file.\nHere's the result of "
                + "running `cat -n` on " + file("v.txt") + ":\n     3\tc\n     4\td\n", beyond.content());
    }

    @Test
    void shouldViewADirectoryTwoLevelsDeepWithoutHiddenEntries() throws Exception {
        Files.createDirectories(workspace.resolve("src/main/deeper"));
        Files.writeString(workspace.resolve("src/App.java"), "class App {}");
        Files.writeString(workspace.resolve(".secret"), "x");
        Files.createDirectories(workspace.resolve(".git/objects"));
        FileReadObservation obs = (FileReadObservation) editor.view(workspace.toString(), null, workspace);
        String ws = workspace.toString();
        assertEquals("Here's the files and directories up to 2 levels deep in " + ws + ", excluding hidden items:\n"
                + ws + "/\n" + ws + "/src/\n" + ws + "/src/App.java\n" + ws + "/src/main/\n\n2 hidden files/directories "
                + "in this directory are excluded. You can use 'ls -la " + ws + "' to see them.", obs.content());
    }

    @Test
    void shouldRefuseRelativeMissingBinaryAndHugeFiles() throws Exception {
        assertTrue(edit("str_replace", "relative.txt", null, "a", "b", null).content()
                .startsWith("ERROR:\nInvalid `path` parameter: relative.txt. The path should be an absolute path, "
                        + "starting with `/`."));
        assertEquals("ERROR:\nInvalid `path` parameter: " + file("missing") + ". The path " + file("missing")
                + " does not exist. Please provide a valid path.",
                edit("str_replace", file("missing"), null, "a", "b", null).content());
        Files.write(workspace.resolve("bin.dat"), new byte[] {1, 0, 2, 0});
        assertEquals("ERROR:\nFile validation failed for " + file("bin.dat") + ": File appears to be binary and this "
                + "file type cannot be read or edited by this tool.",
                edit("str_replace", file("bin.dat"), null, "a", "b", null).content());
        Files.write(workspace.resolve("big.txt"), "x".repeat(11 * 1024 * 1024).getBytes());
        assertEquals("ERROR:\nFile validation failed for " + file("big.txt") + ": File is too large (11.0MB). "
                + "Maximum allowed size is 10MB.", edit("str_replace", file("big.txt"), null, "a", "b", null).content());
        assertEquals("ERROR:\nInvalid `path` parameter: " + workspace + ". The path " + workspace
                + " is a directory and only the `view` command can be used on directories.",
                edit("str_replace", workspace.toString(), null, "a", "b", null).content());
    }

    @Test
    void shouldAnswerAViewWithAnEditObservationForAFileADirectoryAndAMissingPath() throws Exception {
        Files.writeString(workspace.resolve("v.txt"), "a\n");
        for (String path : List.of(file("v.txt"), workspace.toString(), file("missing.txt"))) {
            FileEditObservation obs = edit("view", path, null, null, null, null);
            assertEquals("edit", obs.type());
            assertEquals(path, obs.path());
            assertFalse(obs.prevExist());
            assertEquals(null, obs.oldContent());
            assertEquals(null, obs.newContent());
            assertEquals("oh_aci", obs.implSource());
            assertEquals("", obs.diff());
        }
        assertEquals("Here's the result of running `cat -n` on " + file("v.txt") + ":\n     1\ta\n     2\t\n",
                edit("view", file("v.txt"), null, null, null, null).content());
        assertEquals("ERROR:\nInvalid `path` parameter: " + file("missing.txt") + ". The path " + file("missing.txt")
                + " does not exist. Please provide a valid path.",
                edit("view", file("missing.txt"), null, null, null, null).content());
    }

    @Test
    void shouldUndoWithTheWholeFileShownAndTheDiffBack() throws Exception {
        Files.writeString(workspace.resolve("i.txt"), "one\nthree\n");
        edit("insert", file("i.txt"), null, null, "two", 1);
        FileEditObservation undone = edit("undo_edit", file("i.txt"), null, null, null, null);
        assertEquals("Last edit to " + file("i.txt") + " undone successfully. Here's the result of running `cat -n` on "
                + file("i.txt") + ":\n     1\tone\n     2\tthree\n     3\t\n", undone.content());
        assertEquals("--- " + file("i.txt") + "\n+++ " + file("i.txt") + "\n@@ -2 +1,0 @@\n-two", undone.diff());
    }

    @Test
    void shouldRetryStrReplaceWithoutSurroundingWhitespaceAndNotCreateParents() throws Exception {
        Files.writeString(workspace.resolve("w.py"), "a = 1\nb = 2\n");
        FileEditObservation obs = edit("str_replace", file("w.py"), null, "  b = 2 \n", " b = 3\n", null);
        assertTrue(obs.content().startsWith("The file " + file("w.py") + " has been edited."), obs.content());
        assertEquals("a = 1\nb = 3\n", Files.readString(workspace.resolve("w.py")));
        assertEquals("ERROR:\nRan into [Errno 2] No such file or directory: '" + file("no/f.txt") + "' while trying to "
                + "write to " + file("no/f.txt"), edit("create", file("no/f.txt"), "x", null, null, null).content());
    }

    @Test
    void shouldAppendTheLintOfAPythonChangeAndKeepTheChange() throws Exception {
        editor.lintEdits(true);
        Files.writeString(workspace.resolve("l.py"), "import os\n");
        FileEditObservation obs = edit("insert", file("l.py"), null, null, "def f(:", 1);
        // flake8 says "E999 SyntaxError: invalid syntax" where it is installed, compile() "invalid syntax" elsewhere
        assertTrue(obs.content().matches("(?s).*\n     3\t\n\nLinting issues found in the changes:\n- Line 2, Column \\d+: "
                + "(E999 SyntaxError: )?invalid syntax\n\nReview the changes and make sure they are as expected "
                + "\\(correct indentation, no duplicate lines, etc\\)\\. Edit the file again if necessary\\."),
                obs.content());
        assertEquals("import os\ndef f(:\n", Files.readString(workspace.resolve("l.py")));
        FileEditObservation clean = edit("str_replace", file("l.py"), null, "def f(:", "def f():\n    return os.sep",
                null);
        assertTrue(clean.content().endsWith("\n\nNo linting issues found in the changes.\nReview the changes and make "
                + "sure they are as expected. Edit the file again if necessary."), clean.content());
    }

    @Test
    void shouldAnswerWithoutALintSectionWhenTheLinterCannotRun() throws Exception {
        editor = new FileEditor(new PathGuard(workspace, false), 64, 1_000_000,
                new EditLinter(workspace.resolve("no-python3").toString()));
        editor.lintEdits(true);
        Files.writeString(workspace.resolve("n.py"), "x = 1\n");
        assertEquals("The file " + file("n.py") + " has been edited. Here's the result of running `cat -n` on a snippet "
                + "of " + file("n.py") + ":\n     1\tx = 2\n     2\t\nReview the changes and make sure they are as "
                + "expected. Edit the file again if necessary.",
                edit("str_replace", file("n.py"), null, "x = 1", "x = 2", null).content());
    }

    @Test
    void shouldWriteARelativePathAndItsSuggestionAsPathlibDoes() throws Exception {
        Files.createDirectories(workspace.resolve("src"));
        Files.writeString(workspace.resolve("src/a.txt"), "a\n");
        assertEquals("ERROR:\nInvalid `path` parameter: src/a.txt. The path should be an absolute path, starting with "
                + "`/`. Maybe you meant " + file("src/a.txt") + "?",
                edit("view", "./src//a.txt/", null, null, null, null).content());
        assertEquals("ERROR:\nInvalid `path` parameter: .. The path should be an absolute path, starting with `/`. "
                + "Maybe you meant " + workspace + "?", edit("view", "", null, null, null, null).content());
        assertEquals("ERROR:\nInvalid `path` parameter: nope.txt. The path should be an absolute path, starting with "
                + "`/`.", edit("view", "nope.txt", null, null, null, null).content());
    }

    @Test
    void shouldRefuseEditsOutsideTheWorkspace() {
        FileEditObservation obs = edit("create", "/tmp/dockyard-outside-" + System.nanoTime(), "x", null, null, null);
        assertTrue(obs.content().startsWith("ERROR:\nYou're not allowed to access this path:"), obs.content());
    }
    @Test
    void shouldWriteTheSuffixAndTheSizeAsPythonDoes() throws Exception {
        Files.writeString(workspace.resolve("doc.PDF"), "%PDF-1.4\n");
        assertEquals("ERROR:\nInvalid `path` parameter: " + file("doc.PDF") + ". The path " + file("doc.PDF")
                + " points to a binary file (.PDF) and only the `view` command can be used on supported binary files.",
                edit("str_replace", file("doc.PDF"), null, "a", "b", null).content());
        assertEquals("10.2", FileEditor.megabytes(10_747_904), "10.25 rounds half to even, as Python's format");
        assertEquals("10.5", FileEditor.megabytes(11_000_000));
        assertEquals("--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b", FileEditor.diff("f", "a\u00a0", "b\u0085"),
                "each diff line right-stripped as Python strips it");
    }

    @Test
    void shouldWriteIoFailuresAsPythonsOsError() {
        assertEquals("[Errno 13] Permission denied: '/w/a.py'", PythonOsError.of(
                new java.nio.file.AccessDeniedException("/w/a.py"), "/w/a.py"));
        assertEquals("[Errno 2] No such file or directory: \"/w/it's\"", PythonOsError.of(
                new java.nio.file.NoSuchFileException("/w/it's"), "/w/it's"));
    }
}
