package dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.FileReadObservation;
import dev.dockyard.protocol.FileWriteObservation;
import dev.dockyard.protocol.JsonBytes;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.ProtocolJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /execute_action} with a file {@code write} and {@code read}, which go from the body's
 * bytes to the file and from the file's bytes to the answer, against what the String path gave:
 * the file holds the content JSON-P reads from the body and a newline (OpenHands' whole-file
 * write), and every answer is the one JSON-P writes for the observation made of Strings, byte for
 * byte. With a real executor (its shell) over a temporary workspace.
 */
class ExecutorRequestsFileBytesTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final int MEGABYTE = 1024 * 1024;

    @TempDir
    Path dir;

    private Path workspace;
    private ActionExecutor executor;
    private ExecutorRequests requests;

    @BeforeEach
    void start() throws IOException {
        workspace = Files.createDirectories(dir.resolve("workspace"));
        ExecutorSettings settings = new ExecutorSettings(KEY, workspace, Duration.ofSeconds(30), Duration.ofSeconds(10),
                "/bin/bash", false, List.of());
        executor = new ActionExecutor(settings, Map.of("PATH", "/usr/bin:/bin"),
                Files.createDirectories(dir.resolve("run")), null);
        requests = new ExecutorRequests(new StartedHost(executor, KEY));
    }

    @AfterEach
    void stop() {
        executor.close();
    }

    /** The contents written, as JSON-P writes them into a body (its escapes, UTF-8 as it is). */
    private static List<String> contents() {
        List<String> contents = new ArrayList<>(List.of("", "a", "\n", "\"quoted\" \\ back/slash \b\f\t\u0001\u001f\u007f",
                "é€😀中文 and ?", "crlf\r\nlines\r\nand a lone\rreturn", "x".repeat(MEGABYTE),
                ("x".repeat(1023) + "\n").repeat(1024)));
        // exactly one megabyte of UTF-8 with the newline the write adds; its first kilobyte is
        // ASCII, or the binary check (binaryornot's, on the first kilobyte) would refuse the read
        String ascii = "k".repeat(1024);
        contents.add(ascii + "é".repeat((MEGABYTE - ascii.length() - 1) / 2) + "\n".repeat((MEGABYTE - ascii.length() - 1) % 2));
        contents.add(ascii + "€".repeat((MEGABYTE - ascii.length() - 1) / 3) + "\n".repeat((MEGABYTE - ascii.length() - 1) % 3));
        return contents;
    }

    /** Bodies escaped by hand as other clients do: every character as \\u, a lone surrogate, malformed bytes. */
    private static List<byte[]> handEscapedContents() {
        List<byte[]> bodies = new ArrayList<>();
        for (String escaped : List.of("\\u0041\\u00e9\\u20ac\\ud83d\\ude00\\/\\r\\n", "lone \\ud800 high \\udc00 low",
                "\\ud800\\u0041 unpaired", "long " + "\\u0078".repeat(40_000) + " end")) {
            bodies.add(escaped.getBytes(StandardCharsets.US_ASCII));
        }
        bodies.add(new byte[] {'a', (byte) 0xFF, 'b', (byte) 0xE2, (byte) 0x82, '\\', 'n', (byte) 0xC3});
        return bodies;
    }

    private byte[] execute(byte[] body, String requestId) throws IOException {
        Reply reply = requests.execute(body, requestId);
        assertEquals(200, reply.status(), () -> String.valueOf(reply.body()));
        if (reply.body() instanceof JsonValue json) {
            // as the executor WAR's face streams it
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            JsonBytes.write(json, answer);
            return answer.toByteArray();
        }
        return ((String) reply.body()).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] jsonp(JsonValue value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JSON.createWriter(out).write(value);
        return out.toByteArray();
    }

    private static byte[] answer(Observation observation) {
        return jsonp(ProtocolJson.toJson(observation));
    }

    private static byte[] writeBody(String path, byte[] escapedContent) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("{\"action\":{\"action\":\"write\",\"args\":{\"path\":\"" + path + "\",\"content\":\"")
                .getBytes(StandardCharsets.UTF_8));
        body.writeBytes(escapedContent);
        body.writeBytes("\"}}}".getBytes(StandardCharsets.UTF_8));
        return body.toByteArray();
    }

    private static byte[] readBody(String path) {
        return jsonp(JSON.createObjectBuilder().add("action", JSON.createObjectBuilder().add("action", "read")
                .add("args", JSON.createObjectBuilder().add("path", path))).build());
    }

    /** What JSON-P reads as the content of a write body (malformed UTF-8 as U+FFFD). */
    private static String jsonpContent(byte[] body) {
        JsonObject read = JSON.createReader(new StringReader(new String(body, StandardCharsets.UTF_8))).readObject();
        return ((JsonString) read.getJsonObject("action").getJsonObject("args").get("content")).getString();
    }

    /** What the String path read from a UTF-8 file: its text with Python's universal newlines. */
    private static String readText(byte[] file) {
        return new String(file, StandardCharsets.UTF_8).replace("\r\n", "\n").replace('\r', '\n');
    }

    private void assertWriteAndReadAsBefore(byte[] body, String what) throws IOException {
        String path = workspace.resolve("f.txt").toString();
        String content = jsonpContent(body);
        // a copy: the executor resolves the body's escapes within the array it is given
        assertArrayEquals(answer(new FileWriteObservation("", path)), execute(body.clone(), null), what);
        byte[] expectedFile = (content + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] file = Files.readAllBytes(Path.of(path));
        assertArrayEquals(expectedFile, file, what);
        assertArrayEquals(answer(new FileReadObservation(readText(file), path, "default")),
                execute(readBody(path), null), what);
    }

    @Test
    void shouldWriteWhatJsonpReadsAndAnswerWhatJsonpWrites() throws IOException {
        String path = workspace.resolve("f.txt").toString();
        for (String content : contents()) {
            byte[] body = jsonp(JSON.createObjectBuilder().add("action", JSON.createObjectBuilder().add("action", "write")
                    .add("args", JSON.createObjectBuilder().add("path", path).add("content", content))).build());
            String what = content.length() < 100 ? content : content.substring(0, 20) + "… (" + content.length() + ")";
            assertWriteAndReadAsBefore(body, what);
            // over the file just written: the old file is checked and replaced
            assertWriteAndReadAsBefore(body, "again: " + what);
            Files.delete(Path.of(path));
        }
    }

    @Test
    void shouldTakeBodiesEscapedByHandAsJsonpTakesThem() throws IOException {
        String path = workspace.resolve("f.txt").toString();
        for (byte[] escaped : handEscapedContents()) {
            assertWriteAndReadAsBefore(writeBody(path, escaped), new String(escaped, StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void shouldRefuseToOverwriteAFileThatIsNotUtf8AsBefore() throws IOException {
        Path file = workspace.resolve("latin1.txt");
        byte[] body = writeBody(file.toString(), "new".getBytes(StandardCharsets.UTF_8));
        byte[] refused = answer(ErrorObservation.of("File could not be decoded as utf-8: " + file));
        // a malformed byte at the start, one far past the first buffer the check reads, a truncated end
        for (byte[] old : List.of(new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'},
                concat("a".repeat(200_000).getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xC0, (byte) 0x80}),
                concat("é".repeat(1000).getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xE2, (byte) 0x82}))) {
            Files.write(file, old);
            assertArrayEquals(refused, execute(body, null));
            assertArrayEquals(old, Files.readAllBytes(file), "the old file is left as it was");
        }
        Files.write(file, "valid é\r\n".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals(answer(new FileWriteObservation("", file.toString())), execute(body, null));
        assertEquals("new\n", Files.readString(file));
    }

    @Test
    void shouldRewriteAnOldFileInPlaceCutToTheNewLength() throws IOException {
        Path file = workspace.resolve("old.txt");
        Files.writeString(file, "a much longer old text\n".repeat(100_000));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        execute(writeBody(file.toString(), "short".getBytes(StandardCharsets.UTF_8)), null);
        assertEquals("short\n", Files.readString(file));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(inode, Files.readAttributes(file, BasicFileAttributes.class).fileKey(), "the same file, rewritten");
        // a line range written back, shorter than the file was
        Files.writeString(file, "1\n2\n3\n4\n5\n");
        byte[] range = jsonp(JSON.createObjectBuilder().add("action", JSON.createObjectBuilder().add("action", "write")
                .add("args", JSON.createObjectBuilder().add("path", file.toString()).add("content", "two")
                        .add("start", 1).add("end", 4))).build());
        execute(range, null);
        assertEquals("1\ntwo\n5\n", Files.readString(file));
    }

    @Test
    void shouldReadFilesAsBefore() throws IOException {
        Path file = workspace.resolve("r.txt");
        byte[] notUtf8 = answer(ErrorObservation.of("File could not be decoded as utf-8: " + file + "."));
        List<byte[]> texts = List.of(new byte[0], "no newline".getBytes(StandardCharsets.UTF_8),
                "crlf\r\nlines\r\nlone\rreturn\r".getBytes(StandardCharsets.UTF_8),
                concat("x".repeat(2000).getBytes(StandardCharsets.UTF_8), new byte[] {0, '"', '\\', 1, 0x1f, '\t', '\n'}),
                ("x".repeat(1023) + "\n").repeat(1024).getBytes(StandardCharsets.UTF_8),
                concat("x".repeat(MEGABYTE - 2).getBytes(StandardCharsets.UTF_8), "é".getBytes(StandardCharsets.UTF_8)));
        for (byte[] text : texts) {
            Files.write(file, text);
            byte[] answer = execute(readBody(file.toString()), null);
            assertArrayEquals(answer(new FileReadObservation(readText(text), file.toString(), "default")), answer,
                    () -> "a file of " + text.length + " bytes: " + new String(answer, StandardCharsets.UTF_8));
        }
        for (byte[] malformed : List.of(concat("x".repeat(2000).getBytes(StandardCharsets.UTF_8), new byte[] {'a', (byte) 0xFF}),
                concat("x".repeat(MEGABYTE).getBytes(
                StandardCharsets.UTF_8), new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}))) {
            Files.write(file, malformed);
            assertArrayEquals(notUtf8, execute(readBody(file.toString()), null));
        }
    }

    @Test
    void shouldReplayAWriteAndAReadUnderARequestIdAsTheyWereAnswered() throws IOException {
        String path = workspace.resolve("id.txt").toString();
        String content = ("line \"" + "é".repeat(100) + "\"\n").repeat(1000);
        byte[] body = jsonp(JSON.createObjectBuilder().add("action", JSON.createObjectBuilder().add("action", "write")
                .add("args", JSON.createObjectBuilder().add("path", path).add("content", content))).build());
        byte[] wrote = answer(new FileWriteObservation("", path));
        assertArrayEquals(wrote, execute(Arrays.copyOf(body, body.length), "w-1"));
        assertArrayEquals(wrote, execute(Arrays.copyOf(body, body.length), "w-1"), "the retry of the same action");
        byte[] read = answer(new FileReadObservation(content + "\n", path, "default"));
        assertArrayEquals(read, execute(readBody(path), "r-1"));
        assertArrayEquals(read, execute(readBody(path), "r-1"));
        assertEquals(409, requests.execute(readBody(path + ".other"), "r-1").status());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
