package dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.executor.files.FileTransfer;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code POST /upload_file} answers, with a real executor (its shell) over a temporary workspace. */
class ExecutorRequestsUploadTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private ActionExecutor executor;
    private ExecutorRequests requests;

    @BeforeEach
    void start() throws IOException {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
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

    private Reply upload(String filename, byte[] content, boolean recursive) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.writeBytes(content);
        body.writeBytes("\r\n--b--\r\n".getBytes(StandardCharsets.UTF_8));
        return requests.upload("multipart/form-data; boundary=b", new ByteArrayInputStream(body.toByteArray()),
                dir.resolve("workspace").toString(), recursive);
    }

    @Test
    void shouldStoreAnUpload() throws IOException {
        assertEquals(200, upload("a.txt", "hello".getBytes(StandardCharsets.UTF_8), false).status());
        assertEquals("hello", Files.readString(dir.resolve("workspace/a.txt")));
    }

    @Test
    void shouldAnswerAMalformedZipWith400() {
        Reply reply = upload("tree.zip", "not a zip at all".getBytes(StandardCharsets.UTF_8), true);
        assertEquals(400, reply.status());
        assertTrue(((JsonObject) reply.body()).getString("detail").startsWith("Malformed zip file"), reply.body().toString());
    }

    @Test
    void shouldAnswerAnUploadOverTheBoundWith413() {
        // the bound itself (FileTransferTest) is 1 GiB here, too much to send in a unit test
        Reply reply = ExecutorRequests.uploadFailed(new FileTransfer.UploadTooLargeException(FileTransfer.MAX_UPLOAD_BYTES));
        assertEquals(413, reply.status());
        assertTrue(((JsonObject) reply.body()).getString("detail").startsWith("Upload larger than"));
        assertEquals(500, ExecutorRequests.uploadFailed(new IOException("No space left on device")).status(),
                "a full disk is the executor's failure, not the client's");
    }
}
