package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zip layout of downloads, against OpenHands' action_execution_server.py download_file, and the
 * permission bits a tree keeps from a download to an upload.
 */
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

    /** A body that breaks off after {@code text}, as when the client goes away mid-upload. */
    private static InputStream cutAfter(String text) {
        return new SequenceInputStream(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                new InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw new EOFException("cut short");
                    }
                });
    }

    @Test
    void shouldLeaveNoHalfFileAndTheOldOneAsItWasWhenAnUploadIsCutShort() throws IOException {
        Files.writeString(workspace.resolve("kept.txt"), "the old contents");
        FileTransfer transfer = new FileTransfer(new PathGuard(workspace, false));

        assertThrows(EOFException.class, () -> transfer.upload(workspace, "kept.txt", cutAfter("new"), false));
        assertThrows(EOFException.class, () -> transfer.upload(workspace, "fresh.txt", cutAfter("half"), false));

        assertEquals("the old contents", Files.readString(workspace.resolve("kept.txt")));
        try (Stream<Path> left = Files.list(workspace)) {
            assertEquals(List.of("kept.txt"), left.map(p -> p.getFileName().toString()).toList());
        }
        // and a whole one lands
        transfer.upload(workspace, "kept.txt", new ByteArrayInputStream("new".getBytes(StandardCharsets.UTF_8)), false);
        assertEquals("new", Files.readString(workspace.resolve("kept.txt")));
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

    private byte[] zipOf(Path path) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FileTransfer(new PathGuard(workspace, false)).download(path, out);
        return out.toByteArray();
    }

    private String mode(String path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(workspace.resolve(path)));
    }

    @Test
    void shouldKeepPermissionBitsFromADownloadToAnUpload() throws IOException {
        Path tree = Files.createDirectories(workspace.resolve("tree/bin"));
        Files.writeString(tree.resolve("run.sh"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(tree.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.writeString(workspace.resolve("tree/secret.txt"), "s");
        Files.setPosixFilePermissions(workspace.resolve("tree/secret.txt"), PosixFilePermissions.fromString("rw-------"));
        Path locked = Files.createDirectories(workspace.resolve("tree/locked"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-x------"));

        int files = new FileTransfer(new PathGuard(workspace, false)).upload(workspace.resolve("copy"), "tree.zip",
                new ByteArrayInputStream(zipOf(workspace.resolve("tree"))), true);

        assertEquals(2, files);
        assertEquals("#!/bin/sh\necho hi\n", Files.readString(workspace.resolve("copy/bin/run.sh")));
        assertEquals("rwxr-x---", mode("copy/bin/run.sh"));
        assertEquals("rw-------", mode("copy/secret.txt"));
        assertEquals("r-x------", mode("copy/locked"), "an empty directory's entry carries its mode too");
    }

    @Test
    void shouldGiveTheDefaultsToEntriesWithoutAModeAndNeverSetuid() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry("plain.txt"));
            zip.write("p".getBytes(StandardCharsets.UTF_8));
            ZipEntry setuid = new ZipEntry("tool");
            setuid.setExtra(UnixModes.extra(UnixModes.REGULAR | 04755));
            zip.putNextEntry(setuid);
            zip.write("t".getBytes(StandardCharsets.UTF_8));
        }

        new FileTransfer(new PathGuard(workspace, false)).upload(workspace.resolve("in"), "x.zip",
                new ByteArrayInputStream(out.toByteArray()), true);

        assertTrue(mode("in/plain.txt").startsWith("rw"), mode("in/plain.txt"));
        assertEquals("rwxr-xr-x", mode("in/tool"), "the rwx bits, without setuid");
    }

    private static byte[] zip(String name, String content) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry(name));
            zip.write(content.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    @Test
    void shouldRefuseAnUploadOverItsBoundAsTooLarge() throws IOException {
        FileTransfer bounded = new FileTransfer(new PathGuard(workspace, false), 10);
        assertEquals(1, bounded.upload(workspace, "ten.txt", new ByteArrayInputStream(new byte[10]), false));
        assertThrows(FileTransfer.UploadTooLargeException.class,
                () -> bounded.upload(workspace, "eleven.txt", new ByteArrayInputStream(new byte[11]), false));
        byte[] zip = zip("a.txt", "more than ten bytes, zipped");
        assertThrows(FileTransfer.UploadTooLargeException.class,
                () -> bounded.upload(workspace, "a.zip", new ByteArrayInputStream(zip), true));
    }

    @Test
    void shouldTakeAMalformedZipForTheClientsMistake() throws IOException {
        FileTransfer transfer = new FileTransfer(new PathGuard(workspace, false));
        IllegalArgumentException notZip = assertThrows(IllegalArgumentException.class, () -> transfer.upload(workspace,
                "a.zip", new ByteArrayInputStream("just text".getBytes(StandardCharsets.UTF_8)), true));
        assertTrue(notZip.getMessage().startsWith("Malformed zip file"), notZip.getMessage());
        byte[] whole = zip("a.txt", "x".repeat(10_000));
        byte[] cut = Arrays.copyOf(whole, 60);
        IllegalArgumentException cutShort = assertThrows(IllegalArgumentException.class,
                () -> transfer.upload(workspace, "b.zip", new ByteArrayInputStream(cut), true));
        assertTrue(cutShort.getMessage().startsWith("Malformed zip file"), cutShort.getMessage());
        byte[] corrupt = whole.clone();
        for (int i = 40; i < 60; i++) {
            corrupt[i] ^= (byte) 0x5a;
        }
        assertThrows(IllegalArgumentException.class,
                () -> transfer.upload(workspace, "c.zip", new ByteArrayInputStream(corrupt), true));

        ByteArrayOutputStream empty = new ByteArrayOutputStream();
        new ZipOutputStream(empty).close();
        assertEquals(0, transfer.upload(workspace, "d.zip", new ByteArrayInputStream(empty.toByteArray()), true),
                "an empty zip is a zip");
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
        assertEquals(List.of("adir/", "Bdir/", "to-dir/", "_under", "Zfile"),
                new FileTransfer(new PathGuard(workspace, false)).list(dir),
                "a link to a directory is one, a dangling link is left out, '_' sorts before letters as lower() does");
    }
}
