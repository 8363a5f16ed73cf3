package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.AnswerDroppingForwarder;
import it.dev.dockyard.support.ControlPlane;
import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two control planes on this machine: the shared one (A) uses a second one (B, its own port,
 * instance and Derby database, started here) as its node {@code remote1}
 * ({@code dockyard.node.remote1.type=remote}, {@link ControlPlaneSettings#shared()}: the key of B's
 * user written to its key file once B runs), through a forwarder that can lose an answer. Every
 * runtime A places there is a runtime of B; nothing is left on either once deleted; a B that is
 * down disconnects A's runtimes there and takes no new ones, and they come back with it; a
 * workspace migrates from Docker to B and back with its files and modes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteNodeIT {

    private static final int B_PORT = ControlPlaneSettings.REMOTE1_B_PORT;
    private static final ControlPlane B = new ControlPlane("remote-it-b", B_PORT);
    private static final DockyardApi A = new DockyardApi();
    private static final String A_INSTANCE = System.getProperty("dockyard.instance", "it");
    /**
     * How soon after B stopped A's runtimes there are disconnected: the grace
     * ({@code disconnect-after}, 5 s here, counted from A's first call B left unanswered) plus one
     * reconciler period (10 s: the pass that sees the grace over), plus a margin of 8 s: A's health
     * probe notices B's silence within its interval (2 s here), the list's retries make one pass end
     * up to 3 s later than the one before (three delays of 1 s ± 0.5 s), and 3 s for this poll, the
     * database and a loaded machine.
     */
    private static final Duration DISCONNECTED_WITHIN = Duration.ofSeconds(5 + 10 + 8);
    private static AnswerDroppingForwarder forwarder;

    @BeforeAll
    static void startBAsTheNode() throws Exception {
        B.startFresh();
        DockyardApi.Answer user = B.admin().post("users", Json.createObjectBuilder().add("userId", "node-" + A_INSTANCE)
                .add("role", "user").build());
        assertEquals(201, user.status(), user.body());
        ControlPlaneSettings.writeRemoteKey("remote1", user.json().getString("apiKey"));
        forwarder = new AnswerDroppingForwarder(ControlPlaneSettings.REMOTE1_PORT, B_PORT);
        A.awaitHealthyNode("remote1", Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopB() throws Exception {
        try {
            // a failed test may leave a live runtime on remote1
            A.get("runtimes").json().getJsonArray("runtimes").stream().map(JsonValue::asJsonObject)
                    .filter(r -> "remote1".equals(r.getString("node", "")))
                    .filter(r -> !r.getString("status").equals("STOPPED") && !r.getString("status").equals("ERROR"))
                    .forEach(r -> A.delete("runtimes/" + r.getString("id")));
        } finally {
            if (forwarder != null) {
                forwarder.close();
            }
            B.stop();
            for (String name : DockerCli.containersLabelled("dev.dockyard.control-plane=" + B.instance())) {
                DockerCli.run("rm", "-f", "-v", name);
            }
        }
    }

    /** A's runtime on remote1, READY. */
    private static JsonObject ready(String conversation) {
        DockyardApi.Answer answer = A.provision(Json.createObjectBuilder().add("conversationId", conversation)
                .add("node", "remote1").build(), 120);
        assertEquals(201, answer.status(), answer.body());
        return answer.json();
    }

    /** B's runtimes for A's runtime {@code id} (its session there). */
    private static List<JsonObject> onB(String id) {
        String session = A_INSTANCE + ":dockyard-" + id;
        return B.admin().get("runtimes?conversationId=" + session).json().getJsonArray("runtimes").stream()
                .map(JsonValue::asJsonObject).toList();
    }

    private static JsonObject onlyOnB(String id) {
        List<JsonObject> runtimes = onB(id);
        assertEquals(1, runtimes.size(), runtimes.toString());
        return runtimes.get(0);
    }

    private static String run(String id, String command) {
        return A.act(id, DockyardApi.run(command)).getString("content").strip();
    }

    private static String statusOnA(String id) {
        return A.get("runtimes/" + id).json().getString("status");
    }

    private static String statusOnB(String remoteId) {
        return B.admin().get("runtimes/" + remoteId).json().getString("status");
    }

    @Test
    @Order(1)
    void shouldProvisionActPauseResumeAndDeleteThroughTheOtherControlPlane() {
        JsonObject runtime = ready("it-remote-" + UUID.randomUUID());
        String id = runtime.getString("id");
        String remoteId = null;
        try {
            assertEquals("remote1", runtime.getString("node"), runtime.toString());
            assertEquals("remote", runtime.getString("backend"), runtime.toString());
            JsonObject there = onlyOnB(id);
            remoteId = there.getString("id");
            assertEquals("READY", there.getString("status"), there.toString());
            assertEquals("node-" + A_INSTANCE, there.getString("userId"));
            assertEquals(1, DockerCli.containersLabelled("dev.dockyard.runtime-id=" + remoteId).size());

            // actions: the same observations as on Docker, the shell persistent
            JsonObject observation = A.act(id, DockyardApi.run("cd /workspace && echo remote > made.txt && pwd"));
            assertEquals("run", observation.getString("observation"));
            assertEquals("/workspace", observation.getString("content").strip());
            assertEquals(0, observation.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"));
            assertEquals("remote", run(id, "cat made.txt"));
            JsonObject read = A.act(id, Json.createObjectBuilder().add("action", "read")
                    .add("args", Json.createObjectBuilder().add("path", "/workspace/made.txt")).build());
            assertEquals("read", read.getString("observation"), read.toString());
            assertTrue(read.getString("content").contains("remote"), read.toString());
            // a transfer: the workspace file comes back as a zip through A's API
            DockyardApi.Answer download = A.get("runtimes/" + id + "/files?path=/workspace/made.txt");
            assertEquals(200, download.status(), download.body());

            // A pauses: B's runtime is frozen; an action is refused as on Docker; A resumes it
            DockyardApi.Answer paused = A.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
            assertEquals(200, paused.status(), paused.body());
            assertEquals("PAUSED", statusOnA(id));
            assertEquals("PAUSED", statusOnB(remoteId));
            DockyardApi.Answer refused = A.post("runtimes/" + id + "/actions", DockyardApi.run("echo no"));
            assertEquals(409, refused.status(), refused.body());
            assertEquals(200, A.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build()).status());
            assertEquals("READY", statusOnB(remoteId));
            assertEquals("remote", run(id, "cat made.txt"));

            // B pauses it behind A's back (its idle lifecycle, an admin there): A's next action resumes it first
            assertEquals(200, B.admin().post("runtimes/" + remoteId + "/pause", Json.createObjectBuilder().build())
                    .status());
            assertEquals("PAUSED", statusOnB(remoteId));
            assertEquals("still here", run(id, "echo still here"));
            assertEquals("READY", statusOnB(remoteId));
            assertEquals("READY", statusOnA(id));
        } finally {
            assertEquals(204, A.delete("runtimes/" + id).status());
        }
        // nothing left on either: no sandbox, no volume, no live runtime on B or A
        String removed = remoteId;
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> statusOnA(id).equals("STOPPED"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> statusOnB(removed).equals("STOPPED")
                        && DockerCli.containersLabelled("dev.dockyard.runtime-id=" + removed).isEmpty());
        assertEquals(List.of(), DockerCli.volumesLabelled("dev.dockyard.runtime-id=" + remoteId));
        assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id));
        assertTrue(B.admin().get("runtimes").json().getJsonArray("runtimes").stream().map(JsonValue::asJsonObject)
                .noneMatch(r -> !r.getString("status").equals("STOPPED") && !r.getString("status").equals("ERROR")),
                "B has live runtimes left");
    }

    @Test
    @Order(2)
    void shouldMakeOneSandboxWhenTheFirstStartsAnswerIsLost() {
        forwarder.dropNextAnswerTo("POST /runtime-api/start");
        JsonObject runtime = ready("it-remote-retry-" + UUID.randomUUID());
        String id = runtime.getString("id");
        try {
            assertEquals(1, forwarder.dropped(), "the first answer was not lost: nothing was retried");
            String remoteId = onlyOnB(id).getString("id");
            assertEquals(1, DockerCli.containersLabelled("dev.dockyard.conversation-id=" + A_INSTANCE + ":dockyard-" + id)
                    .size());
            assertEquals(1, DockerCli.containersLabelled("dev.dockyard.runtime-id=" + remoteId).size());
            assertEquals("one", run(id, "echo one"));
        } finally {
            assertEquals(204, A.delete("runtimes/" + id).status());
        }
    }

    @Test
    @Order(3)
    void shouldDisconnectItsRuntimesWhileItIsDownPlaceNothingThereAndRecoverWhenItIsBack() throws Exception {
        JsonObject runtime = ready("it-remote-down-" + UUID.randomUUID());
        String id = runtime.getString("id");
        try {
            run(id, "echo kept > /workspace/kept.txt");
            B.stop();
            long stopped = System.nanoTime();
            Awaitility.await().atMost(DISCONNECTED_WITHIN).pollInterval(Duration.ofMillis(500))
                    .until(() -> statusOnA(id).equals("ERROR_RUNTIME_DISCONNECTED"));
            System.out.printf("remote1's runtime disconnected %.1f s after the second control plane stopped "
                    + "(bound %d s)%n", (System.nanoTime() - stopped) / 1e9, DISCONNECTED_WITHIN.toSeconds());
            assertTrue(A.get("runtimes/" + id).json().getString("statusMessage").contains("remote1"));
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                    .until(() -> A.get("nodes").json().getJsonArray("nodes").stream().map(JsonValue::asJsonObject)
                            .anyMatch(n -> n.getString("name").equals("remote1") && !n.getBoolean("healthy")));
            DockyardApi.Answer refused = A.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-remote-none-" + UUID.randomUUID()).add("node", "remote1").build(), 5);
            assertEquals(503, refused.status(), refused.body());
            assertTrue(refused.body().contains("node-unavailable"), refused.body());

            // back on its own database within remote1's release grace (dockyard.node.remote1.disconnected-grace,
            // 300 s here): the other nodes' 30 s was shorter than a boot of B beside other suites on two
            // cores (measured: released at 30 s)
            B.start();
            JsonObject back = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                back = A.get("runtimes/" + id).json();
                if (back.getString("status").equals("READY")) {
                    break;
                }
                Thread.sleep(500);
            }
            assertEquals("READY", back.getString("status"), back.toString());
            assertTrue(back.getString("statusMessage").startsWith("Reconnected"), back.toString());
            assertEquals("kept", run(id, "cat /workspace/kept.txt"));
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                    .until(() -> A.get("nodes").json().getJsonArray("nodes").stream().map(JsonValue::asJsonObject)
                            .anyMatch(n -> n.getString("name").equals("remote1") && n.getBoolean("healthy")));
            JsonObject again = ready("it-remote-again-" + UUID.randomUUID());
            assertEquals(204, A.delete("runtimes/" + again.getString("id")).status());
        } finally {
            A.delete("runtimes/" + id);
        }
        assertFalse(onB(id).stream().anyMatch(r -> r.getString("status").equals("READY")));
    }

    private static JsonObject migrated(String id, String node) {
        DockyardApi.Answer moved = A.migrate(id, "{\"node\": \"" + node + "\"}", null, 120);
        assertEquals(201, moved.status(), moved.body());
        return moved.json();
    }

    /** The octal modes of {@code paths} in runtime {@code id}, space-separated. */
    private static String modes(String id, String... paths) {
        return run(id, "cd /workspace && stat -c %a " + String.join(" ", paths) + " | tr '\\n' ' '").strip();
    }

    @Test
    @Order(4)
    void shouldMigrateAWorkspaceFromDockerToTheRemoteNodeAndBackWithItsContentsAndModes() {
        DockyardApi.Answer provisioned = A.provision(Json.createObjectBuilder()
                .add("conversationId", "it-remote-migrate-" + UUID.randomUUID()).add("node", "local").build(), 120);
        assertEquals(201, provisioned.status(), provisioned.body());
        String id = provisioned.json().getString("id");
        String movedId = null;
        String backId = null;
        try {
            run(id, "mkdir -p /workspace/project/bin /workspace/empty && printf 'int x;\\n' > /workspace/project/a.c"
                    + " && printf '#!/bin/sh\\necho ran\\n' > /workspace/project/bin/run.sh"
                    + " && chmod 750 /workspace/project/bin/run.sh && chmod 600 /workspace/project/a.c"
                    + " && chmod 700 /workspace/empty");

            // to the remote node: the workspace goes in through its executor's upload, modes kept
            JsonObject moved = migrated(id, "remote1");
            movedId = moved.getString("id");
            assertEquals("remote", moved.getString("backend"), moved.toString());
            assertTrue(moved.getString("statusMessage").contains("migrated from node 'local'"), moved.toString());
            assertEquals("READY", onlyOnB(movedId).getString("status"));
            assertEquals("int x;", run(movedId, "cat /workspace/project/a.c"));
            assertEquals("750 600 700", modes(movedId, "project/bin/run.sh", "project/a.c", "empty"));
            assertEquals("ran", run(movedId, "/workspace/project/bin/run.sh"));
            String remoteId = onlyOnB(movedId).getString("id");

            // and back to Docker: out through its executor's download, owned by the sandbox user again
            run(movedId, "echo back > /workspace/project/b.txt && chmod 640 /workspace/project/b.txt");
            JsonObject back = migrated(movedId, "local");
            backId = back.getString("id");
            assertEquals("docker", back.getString("backend"), back.toString());
            assertEquals("int x;\nback", run(backId, "cat /workspace/project/a.c /workspace/project/b.txt"));
            assertEquals("750 600 640 700", modes(backId, "project/bin/run.sh", "project/a.c", "project/b.txt",
                    "empty"));
            assertEquals("ran", run(backId, "/workspace/project/bin/run.sh"));
            assertEquals("1000 1000", run(backId, "stat -c %u /workspace/project/a.c /workspace/empty | tr '\\n' ' '")
                    .strip());
            // the remote runtime went once the Docker one took over
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> statusOnB(remoteId).equals("STOPPED")
                            && DockerCli.containersLabelled("dev.dockyard.runtime-id=" + remoteId).isEmpty());
        } finally {
            for (String runtime : new String[] {id, movedId, backId}) {
                if (runtime != null) {
                    A.delete("runtimes/" + runtime);
                }
            }
        }
    }
}
