package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The zip layout of downloads, against OpenHands' action_execution_server.py download_file. */
class FileTransferTest {

    @TempDir
    Path workspace;

    private Map<String, String> download(Path path) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FileTransfer(new PathGuard(workspace, false)).download(path, out);
        Map<String, String> entries = new LinkedHashMap<>();
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(out.toByteArray()))) {
            ZipEntry entry;
            while ((entry = zip.getNextEntry()) != null) {
                entries.put(entry.getName(), new String(zip.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return entries;
    }

    @Test
    void shouldNameTreeEntriesRelativeToTheRequestedDirectory() throws IOException {
        Path tree = Files.createDirectories(workspace.resolve("tree/sub"));
        Files.writeString(workspace.resolve("tree/A.txt"), "a");
        Files.writeString(tree.resolve("B.txt"), "b");
        assertEquals(Map.of("A.txt", "a", "sub/B.txt", "b"), download(workspace.resolve("tree")));
    }

    @Test
    void shouldKeepAnEmptyDirectoryAsItsOwnEntry() throws IOException {
        Files.createDirectories(workspace.resolve("tree/empty"));
        Files.writeString(workspace.resolve("tree/A.txt"), "a");
        assertEquals(Map.of("A.txt", "a", "empty/", ""), download(workspace.resolve("tree")));
    }

    @Test
    void shouldNameASingleFileAfterItself() throws IOException {
        Files.writeString(workspace.resolve("note.txt"), "n");
        assertEquals(Map.of("note.txt", "n"), download(workspace.resolve("note.txt")));
    }

    @Test
    void shouldLeaveLinksOut() throws IOException {
        Files.createDirectories(workspace.resolve("tree"));
        Files.writeString(workspace.resolve("tree/A.txt"), "a");
        Files.createSymbolicLink(workspace.resolve("tree/passwd"), Path.of("/etc/passwd"));
        assertEquals(Map.of("A.txt", "a"), download(workspace.resolve("tree")));
    }
    @Test
    void shouldListAsOpenHandsListFilesFollowingLinks() throws IOException {
        Path dir = Files.createDirectories(workspace.resolve("ls"));
        Files.createDirectories(dir.resolve("Bdir"));
        Files.createDirectories(dir.resolve("adir"));
        Files.writeString(dir.resolve("Zfile"), "");
        Files.writeString(dir.resolve("_under"), "");
        Files.createSymbolicLink(dir.resolve("to-dir"), dir.resolve("adir"));
        Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        assertEquals(java.util.List.of("adir/", "Bdir/", "to-dir/", "_under", "Zfile"),
                new FileTransfer(new PathGuard(workspace, false)).list(dir),
                "a link to a directory is one, a dangling link is left out, '_' sorts before letters as lower() does");
    }
}
