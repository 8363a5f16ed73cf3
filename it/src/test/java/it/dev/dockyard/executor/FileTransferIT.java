package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Multipart;
import jakarta.json.Json;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** /upload_file, /download_files and /list_files on the executor in a real sandbox. */
class FileTransferIT extends SandboxTest {


    private HttpResponse<String> upload(String filename, byte[] content, String query) {
        Multipart multipart = new Multipart();
        return sandbox.send(sandbox.request("upload_file?" + query).header("Content-Type", multipart.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArray(multipart.file(filename, content))));
    }

    @Test
    void shouldUploadAFileIntoTheDestination() {
        HttpResponse<String> answer = upload("notes.txt", "uploaded".getBytes(), w("destination=/workspace/up"));
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals(w("{\"filename\":\"notes.txt\",\"destination\":\"/workspace/up\",\"recursive\":false}"), answer.body());
        assertEquals("uploaded", sandbox.run(w("cat /workspace/up/notes.txt")).getString("content"));
    }

    @Test
    void shouldUnpackAZipIntoTheDestination() {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("project/README.md", "# hi");
        entries.put("project/src/main.py", "print('hi')");
        HttpResponse<String> answer = upload("project.zip", Multipart.zip(entries), w("destination=/workspace/z&recursive=true"));
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals("print('hi')", sandbox.run(w("cat /workspace/z/project/src/main.py")).getString("content"));
        assertEquals("", sandbox.run(w("ls /workspace/z/*.zip 2>/dev/null")).getString("content"));
    }

    @Test
    void shouldRefuseZipSlip() {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("ok.txt", "fine");
        entries.put("../../../tmp/evil.txt", "PWNED");
        HttpResponse<String> answer = upload("evil.zip", Multipart.zip(entries), w("destination=/workspace/slip"));
        assertEquals(400, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains("outside the destination"), answer.body());
        assertEquals("absent", sandbox.run("test -e /tmp/evil.txt && echo present || echo absent").getString("content"));
    }

    @Test
    void shouldAnswerAZipThatIsNoneWith400() {
        HttpResponse<String> answer = upload("broken.zip", "not a zip at all".getBytes(),
                w("destination=/workspace/broken&recursive=true"));
        assertEquals(400, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains("Malformed zip file"), answer.body());
    }

    @Test
    void shouldRefuseRelativeOrOutsideDestinations() {
        assertEquals(400, upload("a.txt", "x".getBytes(), "destination=workspace").statusCode());
        HttpResponse<String> outside = upload("a.txt", "x".getBytes(), "destination=/etc");
        assertEquals(400, outside.statusCode());
        assertTrue(outside.body().contains("You're not allowed to access this path"), outside.body());
        assertEquals(400, upload("a.txt", "x".getBytes(), w("destination=/workspace&recursive=true")).statusCode(),
                "recursive uploads must be zips");
    }

    @Test
    void shouldDownloadATreeAsZip() {
        sandbox.run(w("mkdir -p /workspace/dl/sub && echo a > /workspace/dl/a.txt && echo b > /workspace/dl/sub/b.txt"));
        HttpResponse<byte[]> answer = sandbox.sendForBytes(sandbox.request(w("download_files?path=/workspace/dl")).GET());
        assertEquals(200, answer.statusCode());
        assertEquals("application/zip", answer.headers().firstValue("Content-Type").orElse(""));
        // OpenHands' layout: entries relative to the requested directory, files only
        assertEquals(Map.of("a.txt", "a\n", "sub/b.txt", "b\n"), Multipart.unzip(answer.body()));
        assertEquals(400, sandbox.send(sandbox.request("download_files?path=workspace").GET()).statusCode());
        assertEquals(404, sandbox.send(sandbox.request(w("download_files?path=/workspace/none")).GET()).statusCode());
        assertEquals(400, sandbox.send(sandbox.request("download_files?path=/etc").GET()).statusCode());
    }

    @Test
    void shouldListDirectoriesFirstEachSortedIgnoringCase() {
        sandbox.run(w("mkdir -p /workspace/ls/Bdir /workspace/ls/adir && touch /workspace/ls/Zfile /workspace/ls/bfile"));
        HttpResponse<String> answer = sandbox.send(sandbox.request("list_files").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.createObjectBuilder().add("path", w("/workspace/ls"))
                        .build().toString())));
        assertEquals("[\"adir/\",\"Bdir/\",\"bfile\",\"Zfile\"]", answer.body());
    }
}
