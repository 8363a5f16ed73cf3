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
    @Test
    void shouldReadWithPythonsUniversalNewlines() throws Exception {
        Files.writeString(workspace.resolve("crlf.txt"), "a\r\nb\r\nc\rd\n");
        assertEquals("a\nb\nc\nd\n", assertInstanceOf(FileReadObservation.class, read("crlf.txt", 0, -1)).content());
        assertEquals("b\nc\n", assertInstanceOf(FileReadObservation.class, read("crlf.txt", 1, 3)).content());
    }

    @Test
    void shouldRewriteALineRangeOfACrlfFileWithLf() throws Exception {
        Files.writeString(workspace.resolve("crlf.txt"), "1\r\n2\r\n3\r\n");
        assertInstanceOf(FileWriteObservation.class, write("crlf.txt", "two", 1, 2));
        assertEquals("1\ntwo\n3\n", Files.readString(workspace.resolve("crlf.txt")));
        assertInstanceOf(FileWriteObservation.class, write("crlf.txt", "x\r\ny", 0, -1));
        assertEquals("x\r\ny\n", Files.readString(workspace.resolve("crlf.txt")), "a whole write is the content as sent");
    }

    @Test
    void shouldSliceLikePythonForNegativeBounds() {
        List<String> original = List.of("1\n", "2\n", "3\n");
        assertEquals(List.of("1\n", "2\n", "x\n", "2\n", "3\n"), FileActions.insertLines(List.of("x"), original, -1, -2));
    }

    @Test
    void shouldShowThePathAsPathlibJoinsIt() throws Exception {
        Files.createDirectories(workspace.resolve("sub"));
        Files.writeString(workspace.resolve("a.txt"), "a\n");
        FileReadObservation obs = assertInstanceOf(FileReadObservation.class, files.read(new FileReadAction(
                "sub/../a.txt", 0, -1, null, "default", SecurityRisk.UNKNOWN, null), workspace));
        assertEquals(workspace + "/sub/../a.txt", obs.path());
        ErrorObservation missing = assertInstanceOf(ErrorObservation.class, files.read(new FileReadAction(
                "./sub//../none.txt", 0, -1, null, "default", SecurityRisk.UNKNOWN, null), workspace));
        assertEquals("File not found: " + workspace + "/sub/../none.txt. Your current working directory is "
                + workspace + ".", missing.content());
    }

    @Test
    void shouldCheckForBinariesFirstAsOpenHandsDoes() throws Exception {
        Files.write(workspace.resolve("pixel.png"), java.util.Base64.getDecoder().decode(
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="));
        assertEquals("ERROR_BINARY_FILE", assertInstanceOf(ErrorObservation.class, read("pixel.png", 0, -1)).content());
        Files.writeString(workspace.resolve("text.png"), "not an image");
        assertEquals("data:image/png;base64,bm90IGFuIGltYWdl",
                assertInstanceOf(FileReadObservation.class, read("text.png", 0, -1)).content());
        Files.writeString(workspace.resolve("late-nul.txt"), "x".repeat(2000) + "\u0000");
        assertEquals("x".repeat(2000) + "\u0000",
                assertInstanceOf(FileReadObservation.class, read("late-nul.txt", 0, -1)).content());
        Files.write(workspace.resolve("utf16.txt"), new byte[] {(byte) 0xff, (byte) 0xfe, 'h', 0, 'i', 0});
        assertEquals("File could not be decoded as utf-8: " + workspace.resolve("utf16.txt") + ".",
                assertInstanceOf(ErrorObservation.class, read("utf16.txt", 0, -1)).content());
    }
}
