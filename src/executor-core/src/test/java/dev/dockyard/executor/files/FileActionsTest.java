package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.FileReadAction;
import dev.dockyard.protocol.FileReadObservation;
import dev.dockyard.protocol.FileWriteAction;
import dev.dockyard.protocol.FileWriteObservation;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.SecurityRisk;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole-file fast paths of {@link FileActions} give what OpenHands' {@code read_lines} and
 * {@code insert_lines} give, and the UTF-8 check still refuses what the strict decoder refused.
 */
class FileActionsTest {

    @TempDir
    Path workspace;
    private FileActions files;

    @BeforeEach
    void setUp() {
        files = new FileActions(new PathGuard(workspace, false));
    }

    private Observation write(String name, String content, int start, int end) {
        return files.write(new FileWriteAction(workspace.resolve(name).toString(), content, start, end,
                SecurityRisk.UNKNOWN, null), workspace);
    }

    private Observation read(String name, int start, int end) {
        return files.read(new FileReadAction(workspace.resolve(name).toString(), start, end, null, "default",
                SecurityRisk.UNKNOWN, null), workspace);
    }

    @Test
    void shouldWriteTheWholeFileAsInsertLinesDoes() throws Exception {
        for (String content : List.of("", "a", "a\n", "a\nb", "a\n\n", "\n", "é€😀\r\nx")) {
            String expected = String.join("", FileActions.insertLines(List.of(content.split("\n", -1)),
                    List.of("old\n", "lines\n"), 0, -1));
            assertInstanceOf(FileWriteObservation.class, write("new.txt", content, 0, -1));
            assertEquals(expected, Files.readString(workspace.resolve("new.txt")), content);
            assertInstanceOf(FileWriteObservation.class, write("new.txt", content, 0, -1));
            assertEquals(expected, Files.readString(workspace.resolve("new.txt")), "rewritten: " + content);
            Files.delete(workspace.resolve("new.txt"));
        }
    }

    @Test
    void shouldStillReplaceALineRange() throws Exception {
        Files.writeString(workspace.resolve("r.txt"), "1\n2\n3\n4\n");
        assertInstanceOf(FileWriteObservation.class, write("r.txt", "two\nthree", 1, 3));
        assertEquals("1\ntwo\nthree\n4\n", Files.readString(workspace.resolve("r.txt")));
    }

    @Test
    void shouldRefuseToOverwriteAFileThatIsNotUtf8() throws Exception {
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xE9, '\n'};
        Files.write(workspace.resolve("latin1.txt"), latin1);
        ErrorObservation error = assertInstanceOf(ErrorObservation.class, write("latin1.txt", "new", 0, -1));
        assertEquals("File could not be decoded as utf-8: " + workspace.resolve("latin1.txt"), error.content());
        assertArrayEquals(latin1, Files.readAllBytes(workspace.resolve("latin1.txt")));
    }

    @Test
    void shouldReadTheWholeFileAsReadLinesDoes() throws Exception {
        String text = "one\ntwo\n\nthree without newline";
        Files.writeString(workspace.resolve("t.txt"), text);
        assertEquals(text, assertInstanceOf(FileReadObservation.class, read("t.txt", 0, -1)).content());
        assertEquals(text, assertInstanceOf(FileReadObservation.class, read("t.txt", -5, -1)).content());
        assertEquals("two\n\n", assertInstanceOf(FileReadObservation.class, read("t.txt", 1, 3)).content());
        assertEquals("\nthree without newline",
                assertInstanceOf(FileReadObservation.class, read("t.txt", 2, -1)).content());
    }

    @Test
    void shouldReadAFileHoldingAReplacementCharacter() throws Exception {
        Files.writeString(workspace.resolve("fffd.txt"), "a\uFFFDb\n");
        assertEquals("a\uFFFDb\n", assertInstanceOf(FileReadObservation.class, read("fffd.txt", 0, -1)).content());
    }

    @Test
    void shouldDecodeStrictly() throws Exception {
        assertEquals("a\uFFFD€", FileActions.decodeUtf8("a\uFFFD€".getBytes(StandardCharsets.UTF_8)));
        assertThrows(CharacterCodingException.class, () -> FileActions.decodeUtf8(new byte[] {'a', (byte) 0xC3}));
        assertThrows(CharacterCodingException.class, () -> FileActions.decodeUtf8(new byte[] {(byte) 0xED, (byte) 0xA0,
                (byte) 0x80}));
        Path bad = Files.write(workspace.resolve("bad"), new byte[] {'a', (byte) 0xC3});
        assertThrows(CharacterCodingException.class, () -> FileActions.checkUtf8(bad));
        FileActions.checkUtf8(Files.writeString(workspace.resolve("ascii"), "plain ascii".repeat(10000)));
        FileActions.checkUtf8(Files.writeString(workspace.resolve("utf8"), "é€"));
    }
}
