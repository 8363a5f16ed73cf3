package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The it control plane's cli node ({@code cli1}, see ControlPlaneSettings): a runtime there is a directory
 * and a shell on this very host, so this test looks at both directly. Runtime body, pause and
 * resume, migration to Docker and back, DELETE leaving nothing; and the refusals: a node that is
 * not configured, an image's own program on a cli node, a user the node is not open to (cli and
 * local nodes are admins only but for {@value #GRANTED_USER}, granted by DOCKYARD_NODE_CLI1_ALLOWED_USERS).
 */
class CliBackendIT {

    private static final DockyardApi API = new DockyardApi();
    private static final String BASE = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    private static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final Path ROOT = Path.of(System.getProperty("dockyard.cli-runtimes", "target/cli-runtimes"));
    /** The user dockyard.node.cli1.allowed-users grants (ControlPlaneSettings). */
    private static final String GRANTED_USER = ControlPlaneSettings.CLI_GRANTED_USER;

    private static String run(String runtimeId, String command) {
        JsonObject observation = API.act(runtimeId, DockyardApi.run(command));
        assertEquals(0, observation.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"),
                observation.toString());
        return observation.getString("content").strip();
    }

    private static HttpResponse<String> runtimeApiStart(String node, String image) throws Exception {
        return runtimeApiStart(node, image, ADMIN_KEY);
    }

    private static HttpResponse<String> runtimeApiStart(String node, String image, String key) throws Exception {
        JsonObject body = Json.createObjectBuilder().add("image", image).add("session_id", "s" + UUID.randomUUID()
                .toString().replace("-", "").substring(0, 20)).add("node", node).build();
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(BASE + "/runtime-api/start"))
                .header("X-API-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static char state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException gone) {
            return '?';
        }
    }

    /** A directory as a cli runtime leaves it, with its marker, for a runtime the database does not know. */
    private static Path plant(String runtimeId, String controlPlane) throws IOException {
        Path dir = Files.createDirectories(ROOT.resolve("dockyard-" + runtimeId).resolve("workspace")).getParent();
        Files.writeString(dir.resolve("workspace/left.txt"), "left by an earlier run");
        Files.writeString(dir.resolve("runtime.properties"), "runtime-id=" + runtimeId + "\nconversation-id=gone\n"
                + "control-plane=" + controlPlane + "\ncreated-at=2026-01-01T00\\:00\\:00Z\n");
        return dir;
    }

    @Test
    void shouldRemoveTheDirectoriesOfRuntimesItNoLongerHas() throws Exception {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        Path orphan = plant("rt-" + suffix, System.getProperty("dockyard.instance", "it"));
        Path others = plant("rt-other" + suffix.substring(0, 8), "another-control-plane");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (Files.exists(orphan) && System.nanoTime() < deadline) {
                Thread.sleep(1000);
            }
            assertFalse(Files.exists(orphan), "the reconciler removes a directory whose runtime is not live");
            assertTrue(Files.exists(others), "never another control plane's");
        } finally {
            try (var files = Files.walk(others)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void shouldRefuseANodeThatIsNotConfiguredWithAClear400() throws Exception {
        HttpResponse<String> start = runtimeApiStart("cli-absent", "dockyard/sandbox:latest");
        assertEquals(400, start.statusCode(), start.body());
        assertTrue(start.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                start.headers().toString());
        assertTrue(start.body().contains("unknown backend node 'cli-absent'"), start.body());
        DockyardApi.Answer provision = API.provision(Json.createObjectBuilder().add("conversationId", "it-cli-absent-"
                + UUID.randomUUID()).add("node", "cli-absent").build(), 0);
        assertTrue(provision.status() >= 400 && provision.status() < 500, provision.status() + " " + provision.body());
        assertTrue(provision.body().contains("cli-absent"), provision.body());
    }

    @Test
    void shouldRefuseAUserNamingTheCliOrLocalNodeWith403OnBothApis() throws Exception {
        String userId = "it-cli-plain-" + UUID.randomUUID().toString().substring(0, 8);
        DockyardApi.Answer created = API.post("users", Json.createObjectBuilder().add("userId", userId)
                .add("role", "user").build());
        assertEquals(201, created.status(), created.body());
        String key = created.json().getString("apiKey");
        DockyardApi user = API.withKey(key);
        try {
            for (String node : List.of("cli1", "local1")) {
                DockyardApi.Answer provision = user.provision(Json.createObjectBuilder().add("conversationId",
                        "it-cli-refused-" + UUID.randomUUID()).add("node", node).build(), 0);
                assertEquals(403, provision.status(), provision.body());
                assertTrue(provision.contentType().startsWith("application/problem+json"), provision.contentType());
                assertEquals(node, provision.json().getString("node"), provision.body());
                assertFalse(provision.body().contains(GRANTED_USER), "who else may use it stays unsaid");

                HttpResponse<String> start = runtimeApiStart(node, "dockyard/sandbox:latest", key);
                assertEquals(403, start.statusCode(), start.body());
                assertTrue(start.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                        start.headers().toString());
                assertTrue(start.body().contains("'" + node + "'"), start.body());
            }
            assertEquals(0, user.get("runtimes").json().getJsonArray("runtimes").size(), "nothing was recorded");
            // no node named: never a node of this host for this user
            DockyardApi.Answer placed = user.provision(Json.createObjectBuilder().add("conversationId",
                    "it-cli-placed-" + UUID.randomUUID()).build(), 0);
            assertEquals(202, placed.status(), placed.body());
            assertFalse(List.of("cli1", "local1").contains(placed.json().getString("node")), placed.body());
            user.delete("runtimes/" + placed.json().getString("id"));
        } finally {
            API.delete("users/" + userId);
        }
    }

    @Test
    void shouldLetTheUserItsAllowedUsersGrantUseTheCliNode() {
        DockyardApi.Answer created = API.post("users", Json.createObjectBuilder().add("userId", GRANTED_USER)
                .add("role", "user").build());
        // a database kept from an earlier run has the user already: a new key then
        DockyardApi.Answer keyed = created.status() == 409 ? API.post("users/" + GRANTED_USER + "/keys", "", null)
                : created;
        assertEquals(201, keyed.status(), keyed.body());
        DockyardApi granted = API.withKey(keyed.json().getString("apiKey"));
        DockyardApi.Answer provisioned = granted.provision(Json.createObjectBuilder().add("conversationId",
                "it-cli-granted-" + UUID.randomUUID()).add("node", "cli1").build(), 60);
        try {
            assertEquals(201, provisioned.status(), provisioned.body());
            assertEquals("cli1", provisioned.json().getString("node"));
            DockyardApi.Answer local = granted.provision(Json.createObjectBuilder().add("conversationId",
                    "it-cli-granted-local-" + UUID.randomUUID()).add("node", "local1").build(), 0);
            assertEquals(403, local.status(), "granted cli1, not local1: " + local.body());
        } finally {
            if (provisioned.status() < 300) {
                granted.delete("runtimes/" + provisioned.json().getString("id"));
            }
            API.delete("users/" + GRANTED_USER);
        }
    }

    @Test
    void shouldRefuseAnImagesOwnProgramOnACliNode() throws Exception {
        HttpResponse<String> start = runtimeApiStart("cli1", "dockyard/egress-helper:latest");
        assertEquals(400, start.statusCode(), start.body());
        assertTrue(start.body().contains("dockyard/egress-helper:latest"), start.body());
    }

    @Test
    void shouldRunOnThisHostPauseMigrateBothWaysAndLeaveNothingOnDelete() {
        String conversation = "it-cli-" + UUID.randomUUID();
        DockyardApi.Answer provisioned = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                .add("node", "cli1").build(), 60);
        assertEquals(201, provisioned.status(), provisioned.body());
        String id = provisioned.json().getString("id");
        String movedId = null;
        String backId = null;
        try {
            assertEquals("cli1", provisioned.json().getString("node"));
            assertEquals("cli", provisioned.json().getString("backend"));
            Path workspace = Path.of(run(id, "pwd"));
            assertTrue(workspace.startsWith(ROOT.toAbsolutePath()), workspace + " under " + ROOT);
            assertTrue(Files.isDirectory(workspace), "the agent's directory is a directory of this host");
            long shell = Long.parseLong(run(id, "echo $$"));
            run(id, "mkdir -p project && echo 'int x;' > project/a.c && sleep 600 &");

            // pause freezes the shell (SIGSTOP, seen here in /proc), resume thaws it
            assertEquals(200, API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build()).status());
            assertEquals('T', state(shell), "the shell is stopped while the runtime is PAUSED");
            DockyardApi.Answer resumed = API.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build());
            assertEquals(200, resumed.status(), resumed.body());
            assertTrue(state(shell) != 'T');
            assertEquals("int x;", run(id, "cat project/a.c"));

            // to Docker: the workspace travels, owned by the sandbox user there
            DockyardApi.Answer moved = API.migrate(id, "{\"node\": \"local\"}", null, 120);
            assertEquals(201, moved.status(), moved.body());
            movedId = moved.json().getString("id");
            assertEquals("docker", moved.json().getString("backend"));
            assertEquals("int x;", run(movedId, "cat /workspace/project/a.c"));
            assertEquals("1000", run(movedId, "stat -c %u /workspace/project/a.c"));
            assertFalse(Files.exists(workspace.getParent()), "the cli runtime's directory went with it");
            assertTrue(state(shell) == '?' || state(shell) == 'Z', "its shell too");

            // and back to the cli node
            run(movedId, "echo back > /workspace/project/b.txt");
            DockyardApi.Answer back = API.migrate(movedId, "{\"node\": \"cli1\"}", null, 120);
            assertEquals(201, back.status(), back.body());
            backId = back.json().getString("id");
            assertEquals("cli", back.json().getString("backend"));
            Path again = Path.of(run(backId, "pwd"));
            assertEquals("int x;\nback", run(backId, "cat project/a.c project/b.txt"));
            long backShell = Long.parseLong(run(backId, "echo $$"));

            assertEquals(204, API.delete("runtimes/" + backId).status());
            assertFalse(Files.exists(again.getParent()), "DELETE removes the runtime's directory");
            assertTrue(state(backShell) == '?' || state(backShell) == 'Z', "and ends its shell");
        } finally {
            for (String runtime : new String[] {id, movedId, backId}) {
                if (runtime != null) {
                    API.delete("runtimes/" + runtime);
                }
            }
        }
        try (var left = Files.list(ROOT)) {
            List<Path> mine = left.filter(p -> p.getFileName().toString().contains(id)).toList();
            assertEquals(List.of(), mine);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
