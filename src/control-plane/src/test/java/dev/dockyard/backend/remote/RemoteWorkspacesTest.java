package dev.dockyard.backend.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.executor.files.FileTransfer;
import dev.dockyard.executor.files.PathGuard;
import dev.dockyard.executor.files.UnixModes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A workspace migrates to and from a remote node through its executor's zip (the remote's
 * {@code /api/v1/runtimes/{id}/files}), as the tar migration moves: files, directories and
 * permission bits kept, links left out, the sandbox user as owner of what comes out.
 */
class RemoteWorkspacesTest {

    private FakeControlPlane remote;
    private RemoteBackend backend;

    @TempDir
    Path temp;

    @BeforeEach
    void start() throws IOException {
        remote = new FakeControlPlane();
        backend = remote.backend();
    }

    @AfterEach
    void stop() {
        remote.close();
    }

    private static void add(ZipOutputStream zip, String name, Integer mode, String content) throws IOException {
        ZipEntry entry = new ZipEntry(name);
        if (mode != null) {
            entry.setExtra(UnixModes.extra(mode));
        }
        zip.putNextEntry(entry);
        zip.write(content.getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
    }

    /** What the remote's executor downloads for /workspace (its files sorted, empty directories as entries). */
    private static byte[] workspaceZip() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            add(zip, "bin/run.sh", UnixModes.REGULAR | 0755, "#!/bin/sh\necho hi\n");
            add(zip, "empty/", UnixModes.DIRECTORY | 0700, "");
            add(zip, "notes.txt", UnixModes.REGULAR | 0600, "n");
            add(zip, "old/plain.txt", null, "an older executor's entry");
        }
        return out.toByteArray();
    }

    private record Entry(String name, int mode, long uid, String content) {
    }

    private static List<Entry> entries(InputStream tar) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(tar)) {
            TarArchiveEntry entry;
            while ((entry = in.getNextEntry()) != null) {
                entries.add(new Entry(entry.getName(), entry.getMode(), entry.getLongUserId(),
                        new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
        }
        return entries;
    }

    private static long archivesLeft() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(p -> p.getFileName().toString().startsWith("dockyard-remote-archive-")).count();
        }
    }

    @Test
    void shouldArchiveTheWorkspaceAsATarWithItsModesOwnedByTheSandboxUserAndPauseItAgain() throws IOException {
        byte[] zip = workspaceZip();
        remote.routes.put("GET /api/v1/runtimes/rt-remote1",
                (exchange, body) -> FakeControlPlane.json(exchange, 200, FakeControlPlane.runtime("PAUSED")));
        remote.routes.put("POST /api/v1/runtimes/rt-remote1/resume",
                (exchange, body) -> FakeControlPlane.json(exchange, 200, FakeControlPlane.runtime("READY")));
        remote.routes.put("POST /api/v1/runtimes/rt-remote1/pause",
                (exchange, body) -> FakeControlPlane.json(exchange, 200, FakeControlPlane.runtime("PAUSED")));
        remote.routes.put("GET /api/v1/runtimes/rt-remote1/files", (exchange, body) -> {
            exchange.sendResponseHeaders(200, zip.length);
            exchange.getResponseBody().write(zip);
        });
        long before = archivesLeft();

        List<Entry> entries;
        try (InputStream tar = backend.archive("dockyard-rt-a", "/workspace/.")) {
            entries = entries(tar);
        }

        assertEquals(List.of(
                new Entry("./bin/", 040755, 1000, ""),
                new Entry("./bin/run.sh", 0100755, 1000, "#!/bin/sh\necho hi\n"),
                new Entry("./empty/", 040700, 1000, ""),
                new Entry("./notes.txt", 0100600, 1000, "n"),
                new Entry("./old/", 040755, 1000, ""),
                new Entry("./old/plain.txt", 0100644, 1000, "an older executor's entry")), entries);
        List<String> calls = remote.seen.stream().map(s -> s.substring(0, s.indexOf(" key="))).toList();
        int resumed = calls.indexOf("POST /api/v1/runtimes/rt-remote1/resume");
        int downloaded = calls.indexOf("GET /api/v1/runtimes/rt-remote1/files?path=%2Fworkspace");
        int paused = calls.indexOf("POST /api/v1/runtimes/rt-remote1/pause");
        assertTrue(0 <= resumed && resumed < downloaded && downloaded < paused, calls.toString());
        assertEquals(before, archivesLeft(), "the spooled zip is gone once the tar is closed");
    }

    @Test
    void shouldRefuseToArchiveAnythingButADirectorysContents() {
        BackendException refused = assertThrows(BackendException.class,
                () -> backend.archive("dockyard-rt-a", "/workspace"));
        assertTrue(refused.getMessage().contains("dir/."), refused.getMessage());
        assertEquals(List.of(), remote.seen);
    }

    private static void add(TarArchiveOutputStream tar, String name, int mode, String content) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(mode);
        entry.setIds(1000, 1000);
        entry.setSize(content.length());
        tar.putArchiveEntry(entry);
        tar.write(content.getBytes(StandardCharsets.UTF_8));
        tar.closeArchiveEntry();
    }

    /** What a Docker node archives of /workspace/.: its root, directories, files, a link. */
    private static byte[] workspaceTar() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            add(tar, "./", 040777, "");
            add(tar, "./src/", 040750, "");
            add(tar, "./src/main.c", 0100644, "int main() { return 0; }\n");
            add(tar, "./run.sh", 0100755, "#!/bin/sh\n");
            add(tar, "./" + "deep/".repeat(30) + "long.txt", 0100640, "a name over 100 bytes");
            TarArchiveEntry link = new TarArchiveEntry("./link", TarArchiveEntry.LF_SYMLINK);
            link.setLinkName("src/main.c");
            tar.putArchiveEntry(link);
            tar.closeArchiveEntry();
        }
        return out.toByteArray();
    }

    private String mode(Path file) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }

    @Test
    void shouldRestoreATarAsAZipUploadThatAnExecutorUnpacksWithItsModes() throws IOException {
        AtomicReference<byte[]> uploaded = new AtomicReference<>();
        AtomicReference<String> contentType = new AtomicReference<>();
        remote.routes.put("POST /api/v1/runtimes/rt-remote1/files", (exchange, body) -> {
            uploaded.set(body);
            contentType.set(exchange.getRequestHeaders().getFirst("Content-Type"));
            FakeControlPlane.json(exchange, 200, "{\"filename\":\"workspace.zip\"}");
        });

        backend.restore("dockyard-rt-a", "/workspace", new ByteArrayInputStream(workspaceTar()));

        assertEquals(1, remote.count("POST /api/v1/runtimes/rt-remote1/files?destination=%2Fworkspace&recursive=true "
                + "key=true"), remote.seen.toString());
        String boundary = contentType.get().substring(contentType.get().indexOf("boundary=") + 9);
        String multipart = new String(uploaded.get(), StandardCharsets.ISO_8859_1);
        assertTrue(multipart.startsWith("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; "
                + "filename=\"workspace.zip\"\r\n"), multipart.substring(0, 120));
        int start = multipart.indexOf("\r\n\r\n") + 4;
        int end = multipart.lastIndexOf("\r\n--" + boundary + "--");
        byte[] zip = multipart.substring(start, end).getBytes(StandardCharsets.ISO_8859_1);

        // unpacked as the remote's executor does it
        Path workspace = Files.createDirectories(temp.resolve("workspace"));
        String itsOwn = mode(workspace);
        new FileTransfer(new PathGuard(temp, false)).upload(workspace, "workspace.zip", new ByteArrayInputStream(zip),
                true);

        assertEquals("int main() { return 0; }\n", Files.readString(workspace.resolve("src/main.c")));
        assertEquals("rwxr-x---", mode(workspace.resolve("src")));
        assertEquals("rw-r--r--", mode(workspace.resolve("src/main.c")));
        assertEquals("rwxr-xr-x", mode(workspace.resolve("run.sh")));
        assertEquals("rw-r-----", mode(workspace.resolve("deep/".repeat(30) + "long.txt")));
        assertFalse(Files.exists(workspace.resolve("link"), LinkOption.NOFOLLOW_LINKS),
                "a link is not carried");
        assertEquals(itsOwn, mode(workspace), "the workspace keeps its own mode, not the tar root's (0777)");
    }

    @Test
    void shouldNameTheRemotesRefusalOfAnUpload() {
        remote.routes.put("POST /api/v1/runtimes/rt-remote1/files", (exchange, body) -> FakeControlPlane.json(exchange,
                409, "{\"detail\":\"Runtime rt-remote1 is PAUSED; this needs READY\"}"));

        BackendException refused = assertThrows(BackendException.class,
                () -> backend.restore("dockyard-rt-a", "/workspace", new ByteArrayInputStream(workspaceTar())));

        assertTrue(refused.getMessage().contains("409: Runtime rt-remote1 is PAUSED"), refused.getMessage());
        assertEquals(1, remote.count("POST /api/v1/runtimes/rt-remote1/files"), "sent once: " + remote.seen);
    }
}
