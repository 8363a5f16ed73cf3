package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PROTOCOL.md's file semantics (read, write, edit) against the executor in a real sandbox. */
class FileProtocolIT extends SandboxTest {


    @AfterEach
    void backToIdle() {
        sandbox.reset();
    }

    private JsonObject read(String path, int start, int end) {
        return sandbox.execute(Sandbox.action("read", Sandbox.args().add("path", path).add("start", start).add("end", end)));
    }

    private JsonObject write(String path, String content) {
        return sandbox.execute(Sandbox.action("write", Sandbox.args().add("path", path).add("content", content)));
    }

    private JsonObject edit(String command, String path, String... pairs) {
        var args = Sandbox.args().add("command", command).add("path", path);
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i].equals("insert_line")) {
                args.add(pairs[i], Integer.parseInt(pairs[i + 1]));
            } else {
                args.add(pairs[i], pairs[i + 1]);
            }
        }
        return sandbox.execute(Sandbox.action("edit", args));
    }

    @Test
    void shouldReadWholeFilesAndLineRanges() {
        write(w("/workspace/lines.txt"), "l0\nl1\nl2\nl3\nl4");
        assertEquals("l0\nl1\nl2\nl3\nl4\n", read(w("/workspace/lines.txt"), 0, -1).getString("content"));
        assertEquals("l1\nl2\n", read(w("/workspace/lines.txt"), 1, 3).getString("content"));
        assertEquals("l2\nl3\nl4\n", read(w("/workspace/lines.txt"), 2, -1).getString("content"));
        JsonObject obs = read(w("/workspace/lines.txt"), 0, -1);
        assertEquals(w("I read the file /workspace/lines.txt."), obs.getString("message"));
        assertEquals("default", obs.getJsonObject("extras").getString("impl_source"));
    }

    @Test
    void shouldResolveRelativePathsFromTheShellsDirectory() {
        sandbox.run(w("mkdir -p /workspace/sub && cd /workspace/sub && echo rel > here.txt"));
        JsonObject obs = read("here.txt", 0, -1);
        assertEquals("rel\n", obs.getString("content"));
        assertEquals(w("/workspace/sub/here.txt"), obs.getJsonObject("extras").getString("path"));
    }

    /**
     * OpenHands' binary check (binaryornot, the first 1024 bytes) comes before its image branch: a
     * real PNG is ERROR_BINARY_FILE, and only what passes the check (here a bare PNG signature)
     * comes back as a data URL.
     */
    @Test
    void shouldCheckForBinariesBeforeReadingImagesAsDataUrls() {
        sandbox.run(w("printf 'iVBORw0KGgo=' | base64 -d > /workspace/pixel.png"));
        assertEquals("data:image/png;base64,iVBORw0KGgo=", read(w("/workspace/pixel.png"), 0, -1).getString("content"));
        sandbox.run(w("printf 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='"
                + " | base64 -d > /workspace/real.png"));
        assertEquals("ERROR_BINARY_FILE", read(w("/workspace/real.png"), 0, -1).getString("content"));
    }

    @Test
    void shouldReportAMissingFileWithTheWorkingDirectory() {
        JsonObject obs = read(w("/workspace/nope.txt"), 0, -1);
        assertEquals("error", obs.getString("observation"));
        assertEquals(w("File not found: /workspace/nope.txt. Your current working directory is /workspace."),
                obs.getString("content"));
    }

    @Test
    void shouldRefuseReadingADirectory() {
        JsonObject obs = read(w("/workspace"), 0, -1);
        assertEquals(w("Path is a directory: /workspace. You can only read files"), obs.getString("content"));
    }

    @Test
    void shouldRefuseBinaryFiles() {
        sandbox.run(w("head -c 64 /dev/urandom > /workspace/blob.bin; printf '\\0' >> /workspace/blob.bin"));
        assertEquals("ERROR_BINARY_FILE", read(w("/workspace/blob.bin"), 0, -1).getString("content"));
    }

    @Test
    void shouldRefuseFilesOverTenMegabytes() {
        sandbox.run(w("head -c 11000000 /dev/zero | tr '\\0' 'a' > /workspace/huge.txt"));
        JsonObject obs = read(w("/workspace/huge.txt"), 0, -1);
        assertEquals("error", obs.getString("observation"));
        assertTrue(obs.getString("content").contains("over 10 MB"), obs.getString("content"));
        JsonObject edit = edit("str_replace", w("/workspace/huge.txt"), "old_str", "a", "new_str", "b");
        assertTrue(edit.getString("content").contains("File is too large (10.5MB). Maximum allowed size is 10MB."),
                edit.getString("content"));
    }

    @Test
    void shouldWriteCreatingParentsAndReplacingLineRanges() {
        JsonObject obs = write(w("/workspace/new/dir/file.txt"), "a\nb");
        assertEquals("write", obs.getString("observation"));
        assertEquals(w("I wrote to the file /workspace/new/dir/file.txt."), obs.getString("message"));
        assertEquals("a\nb", sandbox.run(w("cat /workspace/new/dir/file.txt")).getString("content"));
        sandbox.execute(Sandbox.action("write", Sandbox.args().add("path", w("/workspace/new/dir/file.txt"))
                .add("content", "X").add("start", 1).add("end", 2)));
        assertEquals("a\nX", sandbox.run(w("cat /workspace/new/dir/file.txt")).getString("content"));
        // find, not stat(1): gVisor (Debian's runsc) refuses the statx flags coreutils' stat passes
        assertEquals("664 dockyard", sandbox.run(w("find /workspace/new/dir/file.txt -printf '%m %u'"))
                .getString("content"));
    }

    @Test
    void shouldEditThroughTheWireWithUnifiedDiff() {
        JsonObject created = edit("create", w("/workspace/app.py"), "file_text", "def f():\n    return 1\n");
        assertEquals("edit", created.getString("observation"));
        assertEquals(w("File created successfully at: /workspace/app.py"), created.getString("content"));
        JsonObject replaced = edit("str_replace", w("/workspace/app.py"), "old_str", "return 1", "new_str", "return 2");
        JsonObject extras = replaced.getJsonObject("extras");
        assertEquals(w("--- /workspace/app.py\n+++ /workspace/app.py\n@@ -2 +2 @@\n-    return 1\n+    return 2"),
                extras.getString("diff"));
        assertEquals("return 1", extras.getString("old_content"));
        assertEquals("return 2", extras.getString("new_content"));
        assertEquals("oh_aci", extras.getString("impl_source"));
        assertEquals(w("I edited the file /workspace/app.py."), replaced.getString("message"));
        JsonObject twice = edit("str_replace", w("/workspace/app.py"), "old_str", "e", "new_str", "E");
        assertEquals("ERROR:\nNo replacement was performed. Multiple occurrences of old_str `e` in lines [1, 2]. "
                + "Please ensure it is unique.", twice.getString("content"));
        assertEquals("", twice.getJsonObject("extras").getString("diff"));
        edit("insert", w("/workspace/app.py"), "insert_line", "0", "new_str", "import os");
        edit("undo_edit", w("/workspace/app.py"));
        JsonObject undone = edit("undo_edit", w("/workspace/app.py"));
        assertTrue(undone.getString("content").startsWith(w("Last edit to /workspace/app.py undone successfully.")));
        assertEquals("def f():\n    return 1", sandbox.run(w("cat /workspace/app.py")).getString("content"));
    }

    @Test
    void shouldViewThroughReadAndEdit() {
        write(w("/workspace/view.txt"), "one\ntwo\nthree");
        JsonObject viaRead = sandbox.execute(Sandbox.action("read", Sandbox.args().add("path", w("/workspace/view.txt"))
                .add("impl_source", "oh_aci").add("view_range", Json.createArrayBuilder().add(2).add(-1))));
        assertEquals(w("Here's the result of running `cat -n` on /workspace/view.txt:\n     2\ttwo\n     3\tthree\n"),
                viaRead.getString("content"));
        JsonObject viaEdit = edit("view", w("/workspace"));
        assertTrue(viaEdit.getString("content").startsWith(
                w("Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n")
                        + w("/workspace/\n")), viaEdit.getString("content"));
    }
}
