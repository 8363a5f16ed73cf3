package dev.dockyard.backend;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TarStreamTest {

    @TempDir
    Path dir;

    @Test
    void shouldEndQuietlyWhenTarMadeTheWholeArchive() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "a");
        try (InputStream tar = TarStream.start(new ProcessBuilder("tar", "-C", dir.toString(), "-cf", "-", "a.txt"))) {
            assertTrue(tar.readAllBytes().length >= 1024);
        }
    }

    @Test
    void shouldEndInTarsComplaintWhenItCouldNotMakeTheArchive() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "a");
        InputStream tar = TarStream.start(new ProcessBuilder("tar", "-C", dir.toString(), "-cf", "-", "a.txt", "gone"));
        IOException failed = assertThrows(IOException.class, tar::readAllBytes);
        assertTrue(failed.getMessage().startsWith("tar exited with status 2: ") && failed.getMessage().contains("gone"),
                failed.getMessage());
        IOException closing = assertThrows(IOException.class, tar::close);
        assertTrue(closing.getMessage().contains("gone"), "a reader that only closes learns it too");
    }

    @Test
    void shouldKeepOnlyTheStartOfALongComplaint() throws Exception {
        InputStream tar = TarStream.start(new ProcessBuilder("sh", "-c",
                "head -c 1000000 /dev/zero | tr '\\0' x >&2; echo done; exit 2"));
        IOException failed = assertThrows(IOException.class, tar::readAllBytes);
        assertTrue(failed.getMessage().length() < TarStream.KEPT + 100, "bounded: " + failed.getMessage().length());
        assertTrue(failed.getMessage().endsWith("x…"), "cut, and says so");
    }

    @Test
    void shouldStopTarWhenTheReaderWantsNoMore() throws Exception {
        InputStream tar = TarStream.start(new ProcessBuilder("sh", "-c", "exec yes"));
        assertTrue(tar.read(new byte[16]) > 0);
        assertDoesNotThrow(tar::close);
    }
}
