package dev.dockyard.backend.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.backend.SandboxWorkspace;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cli backend on this machine: real directories, real bash, the real loopback server,
 * spoken to over HTTP as the control plane's ExecutorClient speaks to any executor.
 */
class CliBackendTest {

    private static final String KEY = "cli-test-session-key-0123456789";
    private static final Instant NOW = Instant.parse("2026-11-25T16:00:00Z");

    @TempDir
    Path root;

    private CliBackend backend;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void node() {
        backend = new CliBackend(new CliNodeConfig("cli1", root, "dockyard/sandbox:latest", 1000),
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @AfterEach
    void close() {
        backend.close();
    }

    /** A sandbox as the provisioner asks for one: a fresh workspace, the open egress policy. */
    private static SandboxSpec spec(String name) {
        return new SandboxSpec("rt-" + name, "conv-" + name, "cp-test", name, "dockyard/sandbox:latest", 1, 0, 512,
                256, "dockyard", 8000, KEY, List.of(), null, List.of()).withWorkspace(SandboxWorkspace.fresh(1024));
    }

    private URI started(String name) {
        backend.create(spec(name));
        return backend.start(name, 8000);
    }

    private HttpResponse<String> get(URI executor, String path, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(executor.resolve(path)).GET();
        if (key != null) {
            request.header("X-Session-API-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(URI executor, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(executor.resolve(path)).header("X-Session-API-Key", KEY)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonObject run(URI executor, String command) throws Exception {
        HttpResponse<String> answer = post(executor, "/execute_action", "{\"action\": {\"action\": \"run\", \"args\": "
                + "{\"command\": " + Json.createValue(command) + "}}}");
        assertEquals(200, answer.statusCode(), answer.body());
        return json(answer.body());
    }

    private static JsonObject json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void shouldServeTheExecutorProtocolOnLoopbackWithTheSessionKey() throws Exception {
        URI executor = started("rt1");
        assertEquals("127.0.0.1", executor.getHost());
        assertEquals(200, get(executor, "/alive", null).statusCode());
        assertEquals(403, get(executor, "/ready", null).statusCode());
        assertEquals("{\"detail\":\"Invalid API Key\"}", get(executor, "/ready", "wrong").body());
        assertEquals(200, get(executor, "/ready", KEY).statusCode());
        assertEquals(404, get(executor, "/no_such_path", KEY).statusCode());
        assertEquals(405, get(executor, "/execute_action", KEY).statusCode());
        HttpResponse<String> notJson = post(executor, "/execute_action", "{not json");
        assertEquals(400, notJson.statusCode());
        assertEquals("{\"detail\":\"The body must be {\\\"action\\\": {...}}\"}", post(executor, "/execute_action",
                "{}").body(), "the executor core's own answer");

        long[] micros = new long[40];
        for (int i = 0; i < micros.length; i++) {
            long start = System.nanoTime();
            assertEquals("hi", run(executor, "echo hi").getString("content").strip());
            micros[i] = (System.nanoTime() - start) / 1_000;
        }
        Arrays.sort(micros);
        // a figure, not a bound: the JDK server reads TCP_NODELAY once per JVM, and in this test JVM
        // another test's server may have been first (without it every answer waits for a delayed
        // ACK, 40 ms); CliBashProtocolIT bounds it in the control plane
        System.out.printf("cli executor, echo over loopback HTTP: median %.2f ms%n", micros[20] / 1000.0);
        Path workspace = root.resolve("rt1/workspace").toRealPath();
        JsonObject pwd = run(executor, "pwd");
        assertEquals(workspace.toString(), pwd.getString("content").strip());
        assertEquals(0, pwd.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"));
    }

    @Test
    void shouldKeepTheControlPlanesVariablesAndTheKeyOutOfTheShell() throws Exception {
        URI executor = started("rt1");
        String env = run(executor, "env").getString("content");
        assertFalse(env.contains(KEY), env);
        assertFalse(env.contains("SESSION_API_KEY"), env);
        assertTrue(env.contains("HOME=" + root.resolve("rt1/home").toRealPath()), env);
        // configuration lands in the runtime's own run/ directory and in the shell
        HttpResponse<String> configured = post(executor, "/configure", "{\"env\": {\"CLI_TEST_VAR\": \"v1\"}}");
        assertEquals(204, configured.statusCode(), configured.body());
        assertEquals("v1", run(executor, "echo $CLI_TEST_VAR").getString("content").strip());
        assertTrue(Files.exists(root.resolve("rt1/run/env.sh")));
    }

    @Test
    void shouldConfineFileActionsToTheWorkspace() throws Exception {
        URI executor = started("rt1");
        HttpResponse<String> write = post(executor, "/execute_action", "{\"action\": {\"action\": \"write\", "
                + "\"args\": {\"path\": \"notes.txt\", \"content\": \"hello\"}}}");
        assertEquals(200, write.statusCode());
        assertEquals("hello", Files.readString(root.resolve("rt1/workspace/notes.txt")).strip());
        for (String path : List.of("/etc/passwd", "../run/env.sh", "../home", "CON", "/dev/null")) {
            JsonObject read = json(post(executor, "/execute_action", "{\"action\": {\"action\": \"read\", "
                    + "\"args\": {\"path\": " + Json.createValue(path) + "}}}").body());
            assertEquals("error", read.getString("observation"), path + ": " + read);
        }
        // configure cannot let a cli runtime's files roam the host
        assertEquals(204, post(executor, "/configure", "{\"fileAccess\": \"anywhere\"}").statusCode());
        JsonObject read = json(post(executor, "/execute_action", "{\"action\": {\"action\": \"read\", "
                + "\"args\": {\"path\": \"/etc/passwd\"}}}").body());
        assertEquals("error", read.getString("observation"), read.toString());
    }

    @Test
    void shouldFreezeAndThawTheShellAndItsJobs() throws Exception {
        URI executor = started("rt1");
        run(executor, "sleep 300 &");
        // the job's fork becomes sleep a moment after the prompt is back
        List<Long> sleeping = sleepers();
        for (int i = 0; i < 500 && sleeping.isEmpty(); i++) {
            Thread.sleep(10);
            sleeping = sleepers();
        }
        assertFalse(sleeping.isEmpty());
        backend.pause("rt1");
        assertEquals(SandboxState.Phase.PAUSED, backend.inspect("rt1").phase());
        StringBuilder tree = new StringBuilder();
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            tree.append(p.pid()).append(' ').append(state(p.pid())).append(' ').append(p.info().commandLine().orElse("?")).append('\n');
        }
        for (long pid : sleeping) {
            assertEquals("T", state(pid), "sleep " + pid + " frozen\n" + tree);
        }
        backend.unpause("rt1");
        assertEquals(SandboxState.Phase.RUNNING, backend.inspect("rt1").phase());
        for (long pid : sleeping) {
            assertNotEquals("T", state(pid));
        }
        JsonObject back = run(executor, "echo back");
        assertEquals("back", back.getString("content").strip(), back.toString());
        backend.remove("rt1");
        for (long pid : sleeping) {
            assertTrue(!Files.exists(Path.of("/proc/" + pid)) || state(pid).equals("Z"), "job " + pid + " ended");
        }
    }

    /** The {@code sleep 300} processes started by this test's shells (descendants of this JVM). */
    private static List<Long> sleepers() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().map(c -> c.contains("sleep 300")).orElse(false))
                .map(ProcessHandle::pid).toList();
    }

    private static String state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException gone) {
            return "?";
        }
    }

    @Test
    void shouldCloseItsServerOnStopAndKeepTheDirectoryForTheRevival() throws Exception {
        // the phases, the endpoint and the key a revival hands: AbstractRuntimeBackendContractTest
        URI executor = started("rt1");
        run(executor, "echo kept > kept.txt");
        backend.stop("rt1");
        assertThrows(ConnectException.class, () -> get(executor, "/alive", null));
        URI again = backend.revive("rt1", KEY, "dockyard", 8000);
        assertEquals("kept", run(again, "cat kept.txt").getString("content").strip());
        assertThrows(BackendException.class, () -> backend.endpoint("rt1", 30000), "only the executor's port");
    }

    @Test
    void shouldFindTheDirectoriesAnEarlierRunLeftAndRemoveThem() throws Exception {
        started("rt1");
        backend.create(spec("rt2"));
        backend.close();
        // the control plane restarted: only the directories are left
        backend = new CliBackend(new CliNodeConfig("cli1", root, "dockyard/sandbox:latest", 1000), Clock.systemUTC());
        List<ManagedSandbox> managed = backend.listManaged("cp-test");
        assertEquals(List.of("rt-rt1", "rt-rt2"), managed.stream().map(ManagedSandbox::runtimeId).sorted().toList());
        assertTrue(managed.stream().allMatch(m -> m.phase() == SandboxState.Phase.EXITED && m.createdAt().equals(NOW)));
        assertEquals(List.of(), backend.listManaged("another-control-plane"));
        assertThrows(BackendException.class, () -> backend.start("rt1", 8000), "no key: it cannot serve");
        URI revived = backend.revive("rt1", KEY, "dockyard", 8000);
        assertEquals(200, get(revived, "/ready", KEY).statusCode());
        backend.remove("rt1");
        backend.remove("rt2");
        backend.remove("rt2");
        assertEquals(List.of(), backend.listManaged("cp-test"));
        assertEquals(SandboxState.Phase.MISSING, backend.inspect("rt1").phase());
        try (var left = Files.list(root)) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void shouldCarryTheWorkspaceAsATarBothWays() throws Exception {
        URI executor = started("rt1");
        run(executor, "mkdir -p src && echo 'print(1)' > src/main.py && chmod 750 src");
        backend.create(spec("rt2"));
        try (InputStream tar = backend.archive("rt1", "/workspace")) {
            backend.restore("rt2", "/", tar);
        }
        assertEquals("print(1)", Files.readString(root.resolve("rt2/workspace/src/main.py")).strip());
        byte[] archived;
        try (InputStream tar = backend.archive("rt1", "/workspace")) {
            archived = tar.readAllBytes();
        }
        Process list = new ProcessBuilder("tar", "-tv", "--numeric-owner", "-f", "-").start();
        list.getOutputStream().write(archived);
        list.getOutputStream().close();
        String listing = new String(list.getInputStream().readAllBytes());
        assertTrue(listing.contains("1000/1000") && listing.contains("workspace/src/main.py")
                && !listing.contains(" 0/0 "), "owned by the sandbox user, workspace/ on top: " + listing);
        // a tar of anything but the workspace takes nothing else into the runtime's directory
        byte[] tar = tarOf(root.resolve("rt1"), "home");
        backend.restore("rt2", "/workspace", new ByteArrayInputStream(tar));
        assertTrue(Files.isDirectory(root.resolve("rt2/workspace/home")));
        assertThrows(BackendException.class, () -> backend.archive("rt1", "/etc"));
    }

    @Test
    void shouldFailAnArchiveTarCouldNotMakeRatherThanEndItQuietly() throws Exception {
        started("rt1");
        Files.writeString(root.resolve("rt1/workspace/notes.txt"), "a file, not a directory");
        InputStream tar = backend.archive("rt1", "/workspace/notes.txt/.");
        IOException failed = assertThrows(IOException.class, tar::readAllBytes);
        assertTrue(failed.getMessage().startsWith("tar exited with status 2: ")
                && failed.getMessage().contains("notes.txt"), failed.getMessage());
        assertThrows(IOException.class, tar::close);
    }

    @Test
    void shouldAnswerAMalformedQueryWith400() throws Exception {
        URI executor = started("rt1");
        // java.net.URI refuses such a query: a client of raw HTTP sends it. The JDK's server parses
        // the request line with URI and answers 400 itself (its own HTML), before any handler
        try (Socket socket = new Socket(executor.getHost(), executor.getPort())) {
            socket.getOutputStream().write(("GET /download_files?path=%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "X-Session-API-Key: " + KEY + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 400 "), answer);
        }
    }

    private static byte[] tarOf(Path dir, String entry) throws Exception {
        Process tar = new ProcessBuilder("tar", "-C", dir.toString(), "-cf", "-", entry).start();
        byte[] bytes = tar.getInputStream().readAllBytes();
        assertEquals(0, tar.waitFor());
        return bytes;
    }

    @Test
    void shouldRefuseWhatItCannotGiveRatherThanDropIt() {
        SandboxSpec base = spec("rt1");
        SandboxSpec program = new SandboxSpec("rt-x", "c", "cp-test", "rt1", "python:3.12", 1, 0, 512, 256, "u", 8000,
                KEY, List.of(), new SandboxProcess(List.of("python3"), null, Map.of(), null), List.of());
        SandboxSpec plugins = new SandboxSpec("rt-x", "c", "cp-test", "rt1", "dockyard/sandbox:latest", 1, 0, 512, 256,
                "u", 8000, KEY, List.of("jupyter"), null, List.of());
        assertTrue(assertThrows(BackendException.class, () -> backend.create(program)).getMessage()
                .contains("never an image's own program"));
        assertTrue(assertThrows(BackendException.class, () -> backend.create(plugins)).getMessage()
                .contains("plugins"));
        assertTrue(assertThrows(BackendException.class, () -> backend.create(base.withEgress(
                new EgressPolicy(EgressPolicy.Mode.NONE, List.of())))).getMessage().contains("network"));
        assertTrue(assertThrows(BackendException.class, () -> backend.create(base.withWorkspace(
                SandboxWorkspace.mount("kept-ws")))).getMessage().contains("workspace volumes"));
        assertThrows(BackendException.class, () -> backend.create(spec("../escape")));
        assertEquals(List.of(), backend.listManaged("cp-test"));
    }

    @Test
    void shouldRefuseToStartWithoutTheAdministratorsAcknowledgement() {
        IllegalStateException unacknowledged = assertThrows(IllegalStateException.class, () -> CliNodeConfig.read(
                config(Map.of("dockyard.node.cli1.root", root.toString())), "cli1", "dockyard/sandbox:latest", 1000));
        assertTrue(unacknowledged.getMessage().contains("dockyard.node.cli1.i-understand-no-isolation=true"));
        assertThrows(IllegalStateException.class, () -> CliNodeConfig.read(config(Map.of(
                "dockyard.node.cli1.i-understand-no-isolation", "true")), "cli1", "x", 1000));
        assertThrows(IllegalStateException.class, () -> CliNodeConfig.read(config(Map.of(
                "dockyard.node.cli1.i-understand-no-isolation", "true", "dockyard.node.cli1.root", "relative/dir")),
                "cli1", "x", 1000));
        CliNodeConfig read = CliNodeConfig.read(config(Map.of("dockyard.node.cli1.i-understand-no-isolation", "true",
                "dockyard.node.cli1.root", root + "/./cli")), "cli1", "dockyard/sandbox:latest", 1000);
        assertEquals(root.resolve("cli"), read.root());
    }

    @Test
    void shouldKnowOnlyDockyardsRuntimeImage() {
        RuntimeImageBuilder images = CliNode.images(new CliNodeConfig("cli1", root, "dockyard/sandbox:latest", 1000));
        assertEquals("true", images.inspect("dockyard/sandbox:latest").orElseThrow().labels()
                .get("dev.dockyard.runtime-image"));
        assertTrue(images.inspect("python:3.12").isEmpty());
    }

    private static Config config(Map<String, String> values) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("getOptionalValue")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return Optional.ofNullable(values.get((String) args[0]));
                });
    }
}
