package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A recognisable LLM key goes in with the provision request; it must reach the sandbox's shell and
 * nowhere else: no log file, no HTTP answer, no event, no database file in clear, not in docker inspect.
 */
class CanarySecretIT {

    private static final DockyardApi API = new DockyardApi();

    @Test
    void shouldKeepTheCanaryOutOfLogsAnswersEventsDatabaseAndInspect() throws Exception {
        String canary = "sk-canary-" + UUID.randomUUID().toString().replace("-", "");
        List<String> answers = new ArrayList<>();
        DockyardApi.Answer provisioned = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-canary-" + UUID.randomUUID())
                .add("llm", Json.createObjectBuilder().add("model", "test-model").add("apiKey", canary)).build(), 120);
        answers.add(provisioned.body());
        assertEquals(201, provisioned.status(), provisioned.body());
        String id = provisioned.json().getString("id");
        String container = "dockyard-" + id;

        // it did reach the shell: the sandbox proves it by the hash, never by the value
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(canary.getBytes(StandardCharsets.UTF_8)));
        DockyardApi.Answer hashed = API.post("runtimes/" + id + "/actions",
                DockyardApi.run("printf %s \"$LLM_API_KEY\" | sha256sum | cut -c1-64"));
        answers.add(hashed.body());
        assertEquals(expected, hashed.json().getString("content"));
        answers.add(API.post("runtimes/" + id + "/actions", DockyardApi.run("echo $LLM_MODEL; ls -la /workspace")).body());
        answers.add(API.post("runtimes/" + id + "/actions", DockyardApi.run("false")).body());
        answers.add(API.post("runtimes/" + id + "/actions", Json.createObjectBuilder().add("action", "explode")
                .add("args", Json.createObjectBuilder()).build()).body());
        answers.add(API.get("runtimes/" + id).body());
        answers.add(API.get("runtimes").body());

        String inspect = DockerCli.ok("inspect", container);
        String sandboxLogs = DockerCli.ok("logs", container) + DockerCli.ok("exec", container, "sh", "-c",
                "cat /dockyard/wlp/usr/servers/executor/logs/* 2>/dev/null; ps -eo args");
        assertEquals(204, API.delete("runtimes/" + id).status());
        answers.add(events(id));

        for (String answer : answers) {
            assertFalse(answer.contains(canary), "an HTTP answer or event carries the secret: " + answer);
        }
        assertFalse(inspect.contains(canary), "docker inspect shows the secret");
        assertFalse(sandboxLogs.contains(canary), "the sandbox's logs or process list show the secret");
        Path server = Path.of(System.getProperty("dockyard.server-output"), "dockyard");
        List<Path> leaking = new ArrayList<>();
        // the server writes while this walks (a log rolled, a database segment replaced): a file gone
        // meanwhile is skipped, its successor is walked
        Files.walkFileTree(server, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile() && (contains(file, canary.getBytes(StandardCharsets.UTF_8))
                        || contains(file, canary.getBytes(StandardCharsets.UTF_16BE)))) {
                    leaking.add(server.relativize(file));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        assertEquals(List.of(), leaking, "server files (logs, FFDC, database) holding the secret in clear");
        assertTrue(Files.isDirectory(server.resolve("dockyard-db")), "the database was searched too");
    }

    private static boolean contains(Path file, byte[] needle) throws IOException {
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (NoSuchFileException gone) {
            return false;
        }
        outer:
        for (int i = 0; i <= data.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (data[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static String events(String id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(System.getProperty("dockyard.url",
                        "http://127.0.0.1:19080") + "/api/v1/runtimes/" + id + "/events"))
                .header("X-API-Key", System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret")).GET().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
    }
}
