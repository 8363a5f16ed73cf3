package dev.dockyard.executor.envd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.executor.ExecutorRequests;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** envd's {@code /files} and {@code /health} over a real executor and HTTP server, as the SDKs send them. */
class EnvdFilesTest extends EnvdServerTests {

    /** An answer: status, headers of note, body bytes. */
    private record Answer(int status, String contentType, long length, byte[] body) {
        JsonObject json() {
            return ConnectClient.parse(body);
        }

        JsonArray array() {
            try (JsonReader reader = Json.createReader(new ByteArrayInputStream(body))) {
                return reader.readArray();
            }
        }
    }

    private static Answer send(String method, String query, Map<String, String> headers, byte[] body) throws IOException {
        HttpURLConnection connection = client.open("/files" + query, headers);
        connection.setRequestMethod(method);
        if (body != null) {
            // chunked, as Node's fetch sends bodies
            connection.setChunkedStreamingMode(8192);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
        } else {
            connection.setDoOutput(false);
        }
        int status = connection.getResponseCode();
        InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
        return new Answer(status, connection.getContentType(), connection.getContentLengthLong(),
                in == null ? new byte[0] : in.readAllBytes());
    }

    private static String q(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static byte[] multipart(String... filenamesAndContents) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int i = 0; i < filenamesAndContents.length; i += 2) {
            body.writeBytes(("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filenamesAndContents[i]
                    + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + filenamesAndContents[i + 1] + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        body.writeBytes("--XyZ--\r\n".getBytes(StandardCharsets.UTF_8));
        return body.toByteArray();
    }

    private static final Map<String, String> MULTIPART = Map.of("Content-Type", "multipart/form-data; boundary=XyZ");

    @Test
    void shouldWriteEveryPartToItsFilenameDirectoriesKept() throws IOException {
        Path absolute = dir.resolve("abs/deep/a.txt");
        Answer answer = send("POST", "", MULTIPART, multipart(absolute.toString(), "A", "rel/dir/b.bin", "B",
                "naïve ✓.txt", "C"));
        assertEquals(200, answer.status(), new String(answer.body(), StandardCharsets.UTF_8));
        assertEquals("A", Files.readString(absolute));
        assertEquals("B", Files.readString(server.home.resolve("rel/dir/b.bin")), "a relative name starts at the home");
        assertEquals("C", Files.readString(server.home.resolve("naïve ✓.txt")), "a raw UTF-8 filename");
        JsonArray written = answer.array();
        assertEquals(3, written.size());
        JsonObject first = written.getJsonObject(0);
        assertEquals(absolute.toString(), first.getString("path"));
        assertEquals("a.txt", first.getString("name"));
        assertEquals("file", first.getString("type"));
    }

    @Test
    void shouldLetThePathParameterWinForOnePartAndTruncate() throws IOException {
        Files.writeString(server.home.resolve("one.txt"), "a much longer old content");
        Answer answer = send("POST", "?path=one.txt", MULTIPART, multipart("ignored-name", "new"));
        assertEquals(200, answer.status());
        assertEquals("new", Files.readString(server.home.resolve("one.txt")));
        assertEquals(server.home.resolve("one.txt").toString(), answer.array().getJsonObject(0).getString("path"));
    }

    @Test
    void shouldTakeOctetStreamAndGzip() throws IOException {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        Answer plain = send("POST", "?path=" + q("bin/all.bin"), Map.of("Content-Type", "application/octet-stream"), all);
        assertEquals(200, plain.status());
        assertArrayEquals(all, Files.readAllBytes(server.home.resolve("bin/all.bin")));
        ByteArrayOutputStream packed = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(packed)) {
            gzip.write("unpacked".getBytes(StandardCharsets.UTF_8));
        }
        Answer gzipped = send("POST", "?path=gz.txt", Map.of("Content-Type", "application/octet-stream",
                "Content-Encoding", "gzip"), packed.toByteArray());
        assertEquals(200, gzipped.status());
        assertEquals("unpacked", Files.readString(server.home.resolve("gz.txt")));
        Answer noPath = send("POST", "", Map.of("Content-Type", "application/octet-stream"), all);
        assertEquals(400, noPath.status());
        assertEquals(400, noPath.json().getInt("code"));
        Answer wrongType = send("POST", "?path=x", Map.of("Content-Type", "text/plain"), all);
        assertEquals(400, wrongType.status());
    }

    @Test
    void shouldDownloadWithALengthAndAnswerEnvdsErrors() throws IOException {
        Files.writeString(server.home.resolve("down.txt"), "content");
        Answer answer = send("GET", "?path=down.txt", Map.of(), null);
        assertEquals(200, answer.status());
        assertEquals("application/octet-stream", answer.contentType());
        assertEquals(7, answer.length());
        assertEquals("content", new String(answer.body(), StandardCharsets.UTF_8));
        Files.writeString(server.home.resolve("empty.txt"), "");
        Answer empty = send("GET", "?path=empty.txt", Map.of(), null);
        assertEquals(200, empty.status());
        assertEquals(0, empty.length(), "an empty file has Content-Length 0 (the SDK's empty-file check)");

        Answer missing = send("GET", "?path=" + q("/no/such/file"), Map.of(), null);
        assertEquals(404, missing.status());
        assertEquals(404, missing.json().getInt("code"));
        assertEquals("path '/no/such/file' does not exist", missing.json().getString("message"));
        assertEquals(400, send("GET", "?path=" + q(dir.toString()), Map.of(), null).status(), "a directory");
        Answer badUser = send("GET", "?path=down.txt&username=nobody", Map.of(), null);
        assertEquals(401, badUser.status());
        assertEquals("invalid username: 'nobody'", badUser.json().getString("message"));
        assertEquals(200, send("GET", "?path=down.txt&username=user", Map.of(), null).status());
    }

    @Test
    void shouldKeepAnUploadsMetadataAndReplaceItOnTheNextUpload() throws IOException {
        Answer first = send("POST", "?path=meta.txt", Map.of("Content-Type", "application/octet-stream",
                "X-Metadata-Owner", "me", "X-Metadata-Kind", "report v1"), new byte[] {1});
        assertEquals(200, first.status());
        JsonObject written = first.array().getJsonObject(0).getJsonObject("metadata");
        assertEquals("me", written.getString("owner"), "keys are lower case");
        assertEquals("report v1", written.getString("kind"));
        JsonObject entry = client.ok("filesystem.Filesystem/Stat", "{\"path\":\"meta.txt\"}").getJsonObject("entry");
        assertEquals("me", entry.getJsonObject("metadata").getString("owner"));
        Answer second = send("POST", "?path=meta.txt", Map.of("Content-Type", "application/octet-stream",
                "X-Metadata-Kind", "v2"), new byte[] {2});
        assertEquals(Map.of("kind", "v2"), Map.copyOf(second.array().getJsonObject(0).getJsonObject("metadata")
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                        e -> ((JsonString) e.getValue()).getString()))), "the whole set is replaced");
        Answer refused = send("POST", "?path=meta.txt", Map.of("Content-Type", "application/octet-stream",
                "X-Metadata-Big", "x".repeat(5000)), new byte[] {3});
        assertEquals(400, refused.status());
    }

    @Test
    void shouldRefuseAnUploadOntoADirectory() throws IOException {
        Files.createDirectories(server.home.resolve("adir"));
        Answer answer = send("POST", "?path=adir", Map.of("Content-Type", "application/octet-stream"), new byte[] {1});
        assertEquals(400, answer.status());
        assertEquals(400, answer.json().getInt("code"));
    }

    @Test
    void shouldAnswerHealthWith204AndOnlyWithTheKey() throws IOException {
        HttpURLConnection health = (HttpURLConnection) server.uri().resolve("/health").toURL().openConnection();
        health.setRequestProperty(ExecutorRequests.SESSION_HEADER, EnvdServer.KEY);
        assertEquals(204, health.getResponseCode());
        HttpURLConnection anonymous = (HttpURLConnection) server.uri().resolve("/health").toURL().openConnection();
        assertEquals(403, anonymous.getResponseCode());
        HttpURLConnection rpc = (HttpURLConnection) server.uri().resolve("/process.Process/List").toURL().openConnection();
        rpc.setRequestMethod("POST");
        assertEquals(403, rpc.getResponseCode(), "every envd route is behind the session key");
    }
}
