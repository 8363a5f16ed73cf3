package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dockyard.executor.ConformanceMatch;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.FileEditAction;
import dev.dockyard.protocol.FileReadAction;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.ProtocolJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The editor's conformance fixtures ({@code it/src/test/resources/conformance/editor-*.json},
 * written from OpenHands' server and openhands-aci's editor) run against the editor alone, on a
 * real file system with {@code /workspace} mapped to a temporary directory: the same
 * expectations, by the same rules ({@link ConformanceMatch}), the end-to-end ConformanceIT checks
 * in a sandbox, verified at unit speed.
 */
class EditorConformanceFixturesTest {

    private static final Path FIXTURES = Path.of("../../it/src/test/resources/conformance");
    /** The same format, for an editor with auto-lint on (EditorAutoLintIT runs them in a sandbox). */
    private static final Path AUTO_LINT_FIXTURES = Path.of("../../it/src/test/resources/conformance-auto-lint");

    @TestFactory
    Stream<DynamicTest> shouldAnswerEveryEditorFixtureAsOpenHands() throws IOException {
        return fixtures(FIXTURES, false);
    }

    /**
     * The lint's expectations come from openhands-aci with flake8 on its PATH, as in the sandbox
     * image; without flake8 here they cannot hold, and the test says so instead of passing.
     */
    @TestFactory
    Stream<DynamicTest> shouldLintAsOpenHandsWithAutoLintOn() throws IOException {
        assumeTrue(onPath("flake8"), "flake8 is not installed here: the sandbox image's lint is checked by "
                + "EditorAutoLintIT");
        return fixtures(AUTO_LINT_FIXTURES, true);
    }

    private Stream<DynamicTest> fixtures(Path dir, boolean lint) throws IOException {
        List<Path> files;
        try (Stream<Path> all = Files.list(dir)) {
            files = all.filter(p -> p.getFileName().toString().startsWith("editor-")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no editor fixtures under " + dir.toAbsolutePath());
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(),
                () -> run(file, lint)));
    }

    private static boolean onPath(String command) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(":")).anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, command)));
    }

    private void run(Path file, boolean lint) throws Exception {
        Path workspace = workspaceAsLongAsTheSandboxOne();
        try {
            run(file, lint, workspace);
        } finally {
            try (Stream<Path> all = Files.walk(workspace)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * A directory whose path is as long as "/workspace": the editor clips long answers at 16,000
     * characters, so where a listing is cut depends on the length of the paths in it.
     */
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

    private void run(Path file, boolean lint, Path workspace) throws Exception {
        JsonObject fixture = read(Files.readString(file, StandardCharsets.UTF_8));
        for (JsonValue command : fixture.getJsonArray("setup")) {
            shell(map(((JsonString) command).getString(), workspace));
        }
        JsonObject actionJson = read(map(fixture.getJsonObject("action").toString(), workspace));
        FileEditor editor = new FileEditor(new PathGuard(workspace, false));
        editor.lintEdits(lint);
        Action action = ProtocolJson.actionFromJson(actionJson);
        Observation observation;
        if (action instanceof FileEditAction edit) {
            observation = editor.edit(edit, workspace);
        } else if (action instanceof FileReadAction readAction) {
            observation = editor.view(readAction.path(), readAction.viewRange(), workspace);
        } else {
            throw new AssertionError("not an editor action: " + actionJson);
        }
        JsonObject expect = read(map(fixture.getJsonObject("expect").toString(), workspace));
        ConformanceMatch.difference("$", expect, ProtocolJson.toJson(observation), ConformanceMatch.EXACT)
                .ifPresent(difference -> fail(file.getFileName() + " (" + fixture.getString("source") + "): "
                        + difference));
    }

    private static String map(String text, Path workspace) {
        return text.replace("/workspace", workspace.toString());
    }

    private static JsonObject read(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }

    private static void shell(String command) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("setup timed out: " + command);
        }
        assertEquals(0, p.exitValue(), "setup failed: " + command + "\n" + out);
    }
}
