package dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.protocol.JsonBytes;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance fixtures ({@code it/src/test/resources/conformance}, written from OpenHands'
 * code) that need no plugin, run at unit speed against a real executor in this process: its
 * persistent bash, files and editor, answered through {@link ExecutorRequests} as the HTTP faces
 * answer them, with {@code /workspace} mapped to a temporary directory of the same length. The
 * same expectations ConformanceIT checks in a sandbox, with the same rules ({@link ConformanceMatch}).
 */
class ConformanceFixturesTest {

    private static final Path FIXTURES = Path.of("../../it/src/test/resources/conformance");
    private static final Set<String> ACTIONS = Set.of("run", "read", "write", "edit");
    private static final Set<String> REQUESTS = Set.of("list_files", "download_files");

    @TestFactory
    Stream<DynamicTest> shouldAnswerEveryFixtureAsOpenHands() throws IOException {
        List<Path> files;
        try (Stream<Path> all = Files.list(FIXTURES)) {
            files = all.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no fixtures under " + FIXTURES.toAbsolutePath());
        return files.stream().filter(ConformanceFixturesTest::runsHere)
                .map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> run(file)));
    }

    /** Shell, file and editor actions, and the listing and download requests: no plugin, no browser. */
    private static boolean runsHere(Path file) {
        JsonObject fixture = read(readString(file));
        if (fixture.containsKey("action")) {
            return ACTIONS.contains(fixture.getJsonObject("action").getString("action"));
        }
        String path = fixture.getJsonObject("request").getString("path");
        return REQUESTS.contains(path.replaceFirst("\\?.*", ""));
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void run(Path file) throws Exception {
        Path workspace = workspaceAsLongAsTheSandboxOne();
        Path config = Files.createTempDirectory("dy-conf");
        try (ActionExecutor executor = new ActionExecutor(new ExecutorSettings("k".getBytes(StandardCharsets.UTF_8),
                workspace, Duration.ofSeconds(120), Duration.ofSeconds(10), "/bin/bash", false, List.of()),
                new HashMap<>(System.getenv()), config, null)) {
            ExecutorRequests requests = new ExecutorRequests(new StartedHost(executor, "k".getBytes(StandardCharsets.UTF_8)));
            check(file, read(map(readString(file), workspace)), requests);
        } finally {
            delete(workspace);
            delete(config);
        }
    }

    private static void check(Path file, JsonObject fixture, ExecutorRequests requests) throws IOException {
        for (JsonValue step : fixture.containsKey("setup") ? fixture.getJsonArray("setup") : List.<JsonValue>of()) {
            JsonObject action = step instanceof JsonString command
                    ? Json.createObjectBuilder().add("action", "run")
                            .add("args", Json.createObjectBuilder().add("command", command.getString())).build()
                    : step.asJsonObject();
            execute(requests, action);
        }
        JsonValue observed;
        Set<String> exact;
        if (fixture.containsKey("action")) {
            observed = execute(requests, fixture.getJsonObject("action"));
            exact = ConformanceMatch.EXACT;
        } else {
            observed = answer(requests, fixture.getJsonObject("request"));
            exact = Set.of();
        }
        Optional<String> difference = ConformanceMatch.difference("$", fixture.get("expect"), observed, exact);
        if (difference.isPresent()) {
            fail(file.getFileName() + " (from " + fixture.getString("source") + "): " + difference.get()
                    + "\nobserved: " + observed);
        }
    }

    private static JsonObject execute(ExecutorRequests requests, JsonObject action) {
        byte[] body = Json.createObjectBuilder().add("action", action).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        Reply reply = requests.execute(body, null);
        if (reply.status() != 200) {
            fail("execute_action answered " + reply.status() + ": " + reply.body());
        }
        return read(new String(JsonBytes.write((JsonValue) reply.body()), StandardCharsets.UTF_8));
    }

    private static JsonObject answer(ExecutorRequests requests, JsonObject request) throws IOException {
        String path = request.getString("path");
        Reply reply;
        if (path.startsWith("list_files")) {
            reply = requests.list(request.containsKey("body") ? request.getJsonObject("body") : null);
        } else {
            reply = requests.download(path.substring(path.indexOf("?path=") + "?path=".length()));
        }
        JsonObjectBuilder answer = Json.createObjectBuilder().add("status", reply.status())
                .add("content_type", reply.contentType());
        if (reply.body() instanceof Reply.Streamed streamed) {
            ByteArrayOutputStream zip = new ByteArrayOutputStream();
            streamed.writeTo(zip);
            JsonObjectBuilder entries = Json.createObjectBuilder();
            try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip.toByteArray()))) {
                for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                    entries.add(entry.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
            answer.add("zip", entries);
        } else if (reply.body() instanceof JsonValue json) {
            answer.add("json", json);
        }
        return answer.build();
    }

    /** A directory whose path is as long as "/workspace", so that cuts at a length fall where they do there. */
    private static Path workspaceAsLongAsTheSandboxOne() throws IOException {
        Random random = new Random();
        for (int attempt = 0; attempt < 100; attempt++) {
            Path candidate = Path.of("/tmp/dy" + Integer.toString(46_656 + random.nextInt(1_632_959), 36)
                    .substring(0, 3));
            try {
                return Files.createDirectory(candidate);
            } catch (FileAlreadyExistsException e) {
                // taken: try another name
            }
        }
        throw new IOException("no free /tmp/dyXXX directory");
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static String map(String text, Path workspace) {
        return text.replace("/workspace", workspace.toString());
    }

    private static JsonObject read(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }
}
