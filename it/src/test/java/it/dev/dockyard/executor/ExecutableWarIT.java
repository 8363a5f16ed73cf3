package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar executor.war}: the very WAR Liberty deploys runs itself on this host's JDK (the
 * one running the tests), as jenkins.war does — laid out once under {@code DOCKYARD_EXECUTOR_HOME},
 * then serving PROTOCOL.md on 127.0.0.1 with the session key it was given, and nothing without it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutableWarIT {

    private static final Path WAR = Path.of(System.getProperty("dockyard.executor.war", "../src/executor/target/executor.war"));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Static: JUnit fills an instance field only after the class's {@code @BeforeAll} ran. */
    @TempDir
    static Path tmp;

    private final String key = UUID.randomUUID().toString();
    private Process executor;
    private URI base;

    @BeforeAll
    void start() throws Exception {
        assertTrue(Files.isRegularFile(WAR), "no executor WAR at " + WAR.toAbsolutePath() + ": mvn -pl src/executor package");
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path workspace = Files.createDirectories(tmp.resolve("workspace"));
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder builder = new ProcessBuilder(java, "-jar", WAR.toAbsolutePath().toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("executor.log").toFile());
        builder.environment().put("SESSION_API_KEY", key);
        builder.environment().put("DOCKYARD_WORKSPACE", workspace.toString());
        builder.environment().put("DOCKYARD_EXECUTOR_HOME", tmp.resolve("home").toString());
        builder.environment().put("EXECUTOR_HOST", "127.0.0.1");
        builder.environment().put("EXECUTOR_PORT", Integer.toString(port));
        executor = builder.start();
        base = URI.create("http://127.0.0.1:" + port + "/");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (get("ready", key).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            if (!executor.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("java -jar executor.war never became ready: "
                        + Files.readString(tmp.resolve("executor.log")));
            }
            Thread.sleep(50);
        }
    }

    @AfterAll
    void stop() throws InterruptedException {
        if (executor != null) {
            executor.destroy();
            if (!executor.waitFor(10, TimeUnit.SECONDS)) {
                executor.destroyForcibly();
            }
        }
    }

    @Test
    void shouldLayItselfOutOnceAndRunTheExecutor() throws Exception {
        assertEquals(List.of("dockyard-executor-core-0.1.0-SNAPSHOT.jar", "dockyard-protocol-0.1.0-SNAPSHOT.jar",
                        "executor-classes.jar"),
                Files.readAllLines(tmp.resolve("home").resolve("classpath")).stream()
                        .filter(jar -> jar.startsWith("dockyard-") || jar.startsWith("executor-")).toList());
        HttpResponse<String> run = HTTP.send(HttpRequest.newBuilder(base.resolve("execute_action"))
                .header("X-Session-API-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"action\":{\"action\":\"run\",\"args\":{\"command\":\"echo from-the-war $((6*7))\"}}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, run.statusCode(), run.body());
        JsonObject observation = Json.createReader(new StringReader(run.body())).readObject();
        assertEquals("from-the-war 42", observation.getString("content").strip());
        assertEquals(tmp.resolve("workspace").toString(),
                observation.getJsonObject("extras").getJsonObject("metadata").getString("working_dir"));
    }

    @Test
    void shouldRefuseEveryProtectedPathWithoutTheKey() throws Exception {
        for (String path : List.of("ready", "execute_action", "list_files", "download_files?path=x", "configure")) {
            HttpResponse<String> answer = get(path, "wrong-" + key);
            assertEquals(403, answer.statusCode(), path);
            assertEquals("{\"detail\":\"Invalid API Key\"}", answer.body(), path);
        }
        assertEquals(200, get("alive", null).statusCode());
    }

    private HttpResponse<String> get(String path, String withKey) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
        if (withKey != null) {
            request.header("X-Session-API-Key", withKey);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
