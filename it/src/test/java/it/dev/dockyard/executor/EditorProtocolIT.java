package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** PROTOCOL.md's file-edit semantics, row by row, against the executor in a real sandbox container. */
class EditorProtocolIT extends SandboxTest {


    private String fresh(String name) {
        return w("/workspace/edit-") + UUID.randomUUID().toString().substring(0, 8) + "-" + name;
    }

    private JsonObject edit(String command, String path, Object... pairs) {
        var args = Sandbox.args().add("command", command).add("path", path);
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] instanceof Integer n) {
                args.add((String) pairs[i], n);
            } else {
                args.add((String) pairs[i], (String) pairs[i + 1]);
            }
        }
        return sandbox.execute(Sandbox.action("edit", args));
    }

    private String cat(String path) {
        return sandbox.execute(Sandbox.action("run", Sandbox.args().add("command", "cat " + path)
                .add("is_static", true))).getString("content");
    }

    @Test
    void shouldCreateAFileWithItsContent() {
        String path = fresh("new.txt");
        JsonObject obs = edit("create", path, "file_text", "hello\nworld\n");
        assertEquals("File created successfully at: " + path, obs.getString("content"));
        assertFalse(obs.getJsonObject("extras").getBoolean("prev_exist"));
        assertEquals("hello\nworld", cat(path));
    }

    @Test
    void shouldRefuseCreateOverAnExistingFile() {
        String path = fresh("exists.txt");
        edit("create", path, "file_text", "first");
        JsonObject obs = edit("create", path, "file_text", "second");
        assertEquals("ERROR:\nInvalid `path` parameter: " + path + ". File already exists at: " + path
                + ". Cannot overwrite files using command `create`.", obs.getString("content"));
        assertEquals("first", cat(path));
    }

    @Test
    void shouldReplaceExactlyOneMatch() {
        String path = fresh("one.py");
        edit("create", path, "file_text", "a = 1\nb = 2\n");
        JsonObject obs = edit("str_replace", path, "old_str", "b = 2", "new_str", "b = 3");
        assertTrue(obs.getString("content").startsWith("The file " + path + " has been edited."), obs.toString());
        assertEquals("a = 1\nb = 3", cat(path));
    }

    @Test
    void shouldRefuseStrReplaceWithTwoMatches() {
        String path = fresh("two.py");
        edit("create", path, "file_text", "x = 1\nx = 1\n");
        JsonObject obs = edit("str_replace", path, "old_str", "x = 1", "new_str", "x = 2");
        assertEquals("ERROR:\nNo replacement was performed. Multiple occurrences of old_str `x = 1` in lines [1, 2]. "
                + "Please ensure it is unique.", obs.getString("content"));
        assertEquals("x = 1\nx = 1", cat(path));
    }

    @Test
    void shouldRefuseStrReplaceWithoutAMatch() {
        String path = fresh("none.py");
        edit("create", path, "file_text", "x = 1\n");
        assertEquals("ERROR:\nNo replacement was performed, old_str `y` did not appear verbatim in " + path + ".",
                edit("str_replace", path, "old_str", "y", "new_str", "z").getString("content"));
    }

    @Test
    void shouldRefuseStrReplaceThatChangesNothing() {
        String path = fresh("same.py");
        edit("create", path, "file_text", "x = 1\n");
        assertEquals("ERROR:\nInvalid `new_str` parameter: x = 1. No replacement was performed. `new_str` and "
                + "`old_str` must be different.", edit("str_replace", path, "old_str", "x = 1", "new_str", "x = 1")
                .getString("content"));
    }

    @Test
    void shouldInsertAtTheTopAndAfterALine() {
        String path = fresh("ins.txt");
        edit("create", path, "file_text", "one\nthree\n");
        edit("insert", path, "insert_line", 1, "new_str", "two");
        edit("insert", path, "insert_line", 0, "new_str", "zero");
        assertEquals("zero\none\ntwo\nthree", cat(path));
        assertEquals("ERROR:\nInvalid `insert_line` parameter: 7. It should be within the range of allowed values: "
                + "[0, 4]", edit("insert", path, "insert_line", 7, "new_str", "x").getString("content"));
    }

    @Test
    void shouldUndoTheLastTenEditsOfAFile() {
        String path = fresh("undo.txt");
        edit("create", path, "file_text", "0\n");
        for (int i = 1; i <= 10; i++) {
            edit("str_replace", path, "old_str", String.valueOf(i - 1), "new_str", String.valueOf(i));
        }
        for (int i = 9; i >= 0; i--) {
            JsonObject obs = edit("undo_edit", path);
            assertTrue(obs.getString("content").startsWith("Last edit to " + path + " undone successfully."));
            assertEquals(String.valueOf(i), cat(path));
        }
    }

    @Test
    void shouldSayThereIsNoHistoryToUndo() {
        String path = fresh("nohistory.txt");
        sandbox.run("echo untouched > " + path);
        assertEquals("ERROR:\nNo edit history found for " + path + ".", edit("undo_edit", path).getString("content"));
    }

    @Test
    void shouldViewAFileAsNumberedLinesWithARange() {
        String path = fresh("view.txt");
        edit("create", path, "file_text", "a\nb\nc\n");
        JsonObject all = sandbox.execute(Sandbox.action("read", Sandbox.args().add("path", path)
                .add("impl_source", "oh_aci")));
        // openhands-aci numbers every piece between newlines: the final newline shows as an empty line 4
        assertEquals("Here's the result of running `cat -n` on " + path + ":\n     1\ta\n     2\tb\n     3\tc\n"
                + "     4\t\n", all.getString("content"));
        assertEquals("read", all.getString("observation"));
        JsonObject tail = sandbox.execute(Sandbox.action("edit", Sandbox.args().add("command", "view").add("path", path)
                .add("view_range", Json.createArrayBuilder().add(2).add(-1))));
        assertEquals("Here's the result of running `cat -n` on " + path + ":\n     2\tb\n     3\tc\n",
                tail.getString("content"));
        assertEquals("edit", tail.getString("observation"));
    }

    /** OpenHands' ActionExecutor.edit answers every command, view too, with an edit observation. */
    @Test
    void shouldAnswerAViewWithAnEditObservationForAFileADirectoryAndAMissingPath() {
        String dir = fresh("viewed");
        sandbox.run("mkdir -p " + dir + " && printf 'a\\n' > " + dir + "/f.txt");
        String file = dir + "/f.txt";
        String missing = dir + "/missing.txt";
        for (String path : new String[] {file, dir, missing}) {
            JsonObject obs = edit("view", path);
            assertEquals("edit", obs.getString("observation"), obs.toString());
            JsonObject extras = obs.getJsonObject("extras");
            assertEquals(path, extras.getString("path"));
            assertFalse(extras.getBoolean("prev_exist"));
            assertTrue(extras.isNull("old_content"));
            assertTrue(extras.isNull("new_content"));
            assertEquals("oh_aci", extras.getString("impl_source"));
            assertEquals("", extras.getString("diff"));
            assertTrue(extras.containsKey("_diff_cache") && extras.isNull("_diff_cache"), extras.toString());
            assertEquals("I edited the file " + path + ".", obs.getString("message"));
            assertFalse(obs.containsKey("success"));
        }
        assertEquals("Here's the result of running `cat -n` on " + file + ":\n     1\ta\n     2\t\n",
                edit("view", file).getString("content"));
        assertEquals("Here's the files and directories up to 2 levels deep in " + dir + ", excluding hidden items:\n"
                + dir + "/\n" + file, edit("view", dir).getString("content"));
        assertEquals("ERROR:\nInvalid `path` parameter: " + missing + ". The path " + missing + " does not exist. "
                + "Please provide a valid path.", edit("view", missing).getString("content"));
    }

    @Test
    void shouldAnswerEveryChangeAsOpenHandsServerBuildsTheObservation() {
        String path = fresh("fields.txt");
        JsonObject created = edit("create", path, "file_text", "one\nthree\n");
        assertEquals("--- " + path + "\n+++ " + path + "\n@@ -0,0 +1,2 @@\n+one\n+three",
                created.getJsonObject("extras").getString("diff"));
        assertTrue(created.getJsonObject("extras").isNull("new_content"), "the action's new_str, none for create");
        JsonObject inserted = edit("insert", path, "insert_line", 1, "new_str", "two");
        assertEquals("The file " + path + " has been edited. Here's the result of running `cat -n` on a snippet of the "
                + "edited file:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\t\nReview the changes and make sure "
                + "they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if "
                + "necessary.", inserted.getString("content"));
        assertEquals("two", inserted.getJsonObject("extras").getString("new_content"));
        assertFalse(inserted.getJsonObject("extras").getBoolean("prev_exist"));
        JsonObject undone = edit("undo_edit", path);
        assertEquals("Last edit to " + path + " undone successfully. Here's the result of running `cat -n` on " + path
                + ":\n     1\tone\n     2\tthree\n     3\t\n", undone.getString("content"));
        assertEquals("--- " + path + "\n+++ " + path + "\n@@ -2 +1,0 @@\n-two",
                undone.getJsonObject("extras").getString("diff"));
        JsonObject refused = edit("str_replace", path, "old_str", "absent", "new_str", "x");
        assertEquals("", refused.getJsonObject("extras").getString("diff"));
        assertEquals("absent", refused.getJsonObject("extras").getString("old_content"));
    }

    @Test
    void shouldViewADirectoryTwoLevelsDeepWithoutHiddenEntries() {
        String dir = fresh("tree");
        sandbox.run("mkdir -p " + dir + "/a/b/c " + dir + "/.hidden && touch " + dir + "/a/b/c/deep.txt " + dir
                + "/top.txt " + dir + "/.dotfile");
        String content = edit("view", dir).getString("content");
        assertEquals("Here's the files and directories up to 2 levels deep in " + dir + ", excluding hidden items:\n"
                + dir + "/\n" + dir + "/a/\n" + dir + "/a/b/\n" + dir + "/top.txt\n\n2 hidden files/directories in this "
                + "directory are excluded. You can use 'ls -la " + dir + "' to see them.", content);
    }

    @Test
    void shouldRefuseBinaryAndOversizedFiles() {
        String binary = fresh("blob.bin");
        sandbox.run("printf 'a\\0b' > " + binary);
        assertTrue(edit("str_replace", binary, "old_str", "a", "new_str", "b").getString("content")
                .endsWith("File appears to be binary and this file type cannot be read or edited by this tool."));
        String big = fresh("big.txt");
        sandbox.run("head -c 10485761 /dev/zero | tr '\\0' x > " + big);
        assertTrue(edit("insert", big, "insert_line", 0, "new_str", "y").getString("content")
                .endsWith("File is too large (10.0MB). Maximum allowed size is 10MB."));
    }

    @Test
    void shouldRequireAbsolutePaths() {
        assertTrue(edit("create", "relative.txt", "file_text", "x").getString("content")
                .startsWith("ERROR:\nInvalid `path` parameter: relative.txt. The path should be an absolute path, "
                        + "starting with `/`."));
    }

    @Test
    void shouldCarryAUnifiedDiffOfEveryChange() {
        String path = fresh("diff.txt");
        edit("create", path, "file_text", "keep\nold\n");
        JsonObject obs = edit("str_replace", path, "old_str", "old", "new_str", "new");
        assertEquals("--- " + path + "\n+++ " + path + "\n@@ -2 +2 @@\n-old\n+new",
                obs.getJsonObject("extras").getString("diff"));
    }
}
