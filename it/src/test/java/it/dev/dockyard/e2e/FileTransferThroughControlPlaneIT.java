package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.Multipart;
import jakarta.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Files in and out of a runtime through the control plane, and idempotent actions through it. */
class FileTransferThroughControlPlaneIT {

    private static final DockyardApi API = new DockyardApi();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static String runtime;

    @BeforeAll
    static void provision() {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-files-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        runtime = answer.json().getString("id");
    }

    @AfterAll
    static void delete() {
        API.delete("runtimes/" + runtime);
    }

    private static URI files(String query) {
        return URI.create(System.getProperty("dockyard.url", "http://127.0.0.1:19080") + "/api/v1/runtimes/" + runtime
                + "/files?" + query);
    }

    private static String key() {
        return System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    }

    @Test
    void shouldUploadAZipAndDownloadTheTreeBack() throws Exception {
        Multipart multipart = new Multipart();
        byte[] zip = Multipart.zip(Map.of("repo/a.txt", "alpha", "repo/lib/b.txt", "beta"));
        HttpResponse<String> up = HTTP.send(HttpRequest.newBuilder(files("destination=/workspace&recursive=true"))
                .header("X-API-Key", key()).header("Content-Type", multipart.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArray(multipart.file("repo.zip", zip))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, up.statusCode(), up.body());
        assertEquals("beta", API.act(runtime, DockyardApi.run("cat /workspace/repo/lib/b.txt")).getString("content"));

        HttpResponse<byte[]> down = HTTP.send(HttpRequest.newBuilder(files("path=/workspace/repo"))
                .header("X-API-Key", key()).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, down.statusCode());
        assertEquals("application/zip", down.headers().firstValue("Content-Type").orElse(""));
        assertEquals(Map.of("a.txt", "alpha", "lib/b.txt", "beta"),
                Multipart.unzip(down.body()));
    }

    @Test
    void shouldAnswerProblemsForMissingOrOutsidePaths() throws Exception {
        HttpResponse<String> missing = HTTP.send(HttpRequest.newBuilder(files("path=/workspace/none"))
                .header("X-API-Key", key()).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode(), missing.body());
        assertTrue(missing.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
        HttpResponse<String> outside = HTTP.send(HttpRequest.newBuilder(files("path=/etc"))
                .header("X-API-Key", key()).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, outside.statusCode(), outside.body());
        HttpResponse<String> relative = HTTP.send(HttpRequest.newBuilder(files("path=etc"))
                .header("X-API-Key", key()).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, relative.statusCode(), relative.body());
    }

    @Test
    void shouldReplayAnActionRetriedWithTheSameRequestId() throws Exception {
        String id = UUID.randomUUID().toString();
        String action = DockyardApi.run("echo once >> /workspace/retry.log; wc -l < /workspace/retry.log").toString();
        URI uri = URI.create(System.getProperty("dockyard.url", "http://127.0.0.1:19080") + "/api/v1/runtimes/"
                + runtime + "/actions");
        HttpRequest request = HttpRequest.newBuilder(uri).header("X-API-Key", key())
                .header("Content-Type", "application/json").header("X-Request-ID", id)
                .POST(HttpRequest.BodyPublishers.ofString(action)).build();
        String first = HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
        String second = HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
        assertEquals(first, second);
        assertEquals("1", API.act(runtime, DockyardApi.run("wc -l < /workspace/retry.log")).getString("content"));
    }
}
