package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Migration between two real Docker engines (backend nodes "local" and "node2"): the workspace
 * travels, the old runtime goes only once the new one is READY, a failed move keeps the old one.
 */
class MigrationIT {

    private static final DockyardApi API = new DockyardApi();
    private static final String LOCAL = "unix:///var/run/docker.sock";

    private static String provisioned(String conversation, JsonObject sandbox) {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                .add("sandbox", sandbox).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        assertEquals("local", answer.json().getString("node"));
        return answer.json().getString("id");
    }

    private static String run(String runtimeId, String command) {
        JsonObject observation = API.act(runtimeId, DockyardApi.run(command));
        assertEquals(0, observation.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"), observation.toString());
        return observation.getString("content").strip();
    }

    @Test
    void shouldCarryTheWorkspaceToTheOtherNodeAndRemoveTheOldRuntimeOnlyOnceTheNewOneIsReady() {
        String conversation = "it-migrate-" + UUID.randomUUID();
        String oldId = provisioned(conversation, Json.createObjectBuilder()
                .add("env", Json.createObjectBuilder().add("GREETING", "hello from the request")).build());
        String newId = null;
        String backId = null;
        try {
            run(oldId, "mkdir -p /workspace/project/src && echo 'int x;' > /workspace/project/src/a.c"
                    + " && chmod 640 /workspace/project/src/a.c && ln -s src/a.c /workspace/project/link"
                    + " && head -c 5000000 /dev/urandom > /workspace/big.bin");
            String digest = run(oldId, "cd /workspace && sha256sum big.bin project/src/a.c");

            DockyardApi.Answer moved = API.migrate(oldId, "{\"node\": \"node2\"}", null, 120);
            assertEquals(201, moved.status(), moved.body());
            JsonObject fresh = moved.json();
            newId = fresh.getString("id");
            assertEquals("READY", fresh.getString("status"));
            assertEquals("node2", fresh.getString("node"));
            assertEquals(oldId, fresh.getString("replaces"));
            assertEquals(conversation, fresh.getString("conversationId"));
            assertTrue(fresh.getString("statusMessage").contains("migrated from node 'local'"),
                    fresh.getString("statusMessage"));

            // the old runtime went once the new one was ready, and its sandbox with it
            JsonObject old = API.get("runtimes/" + oldId).json();
            assertEquals("STOPPED", old.getString("status"));
            assertEquals("Replaced by " + newId, old.getString("statusMessage"));
            assertEquals(List.of(), DockerCli.containersLabelledOn(LOCAL, "dev.dockyard.conversation-id=" + conversation));
            assertEquals(List.of("dockyard-" + newId), DockerCli.containersLabelledOn(DockerCli.NODE2,
                    "dev.dockyard.conversation-id=" + conversation));
            assertEquals(409, API.post("runtimes/" + oldId + "/actions", DockyardApi.run("true")).status());

            // the workspace arrived whole: contents, modes, owner, links; the configuration too
            assertEquals(digest, run(newId, "cd /workspace && sha256sum big.bin project/src/a.c"));
            assertEquals("640 " + run(newId, "id -un") + " src/a.c",
                    run(newId, "stat -c '%a %U' /workspace/project/src/a.c | tr '\\n' ' '; readlink /workspace/project/link"));
            assertEquals("hello from the request", run(newId, "echo $GREETING"));
            assertFalse(DockerCli.ok("-H", DockerCli.NODE2, "inspect", "dockyard-" + newId).contains("hello from the request"),
                    "request variables are injected after ready, never container environment");

            // and back again, to the first other node when none is named
            DockyardApi.Answer back = API.migrate(newId, "", null, 120);
            assertEquals(201, back.status(), back.body());
            backId = back.json().getString("id");
            assertEquals("local", back.json().getString("node"));
            assertEquals(digest, run(backId, "cd /workspace && sha256sum big.bin project/src/a.c"));
            assertEquals(List.of(), DockerCli.containersLabelledOn(DockerCli.NODE2,
                    "dev.dockyard.conversation-id=" + conversation));
        } finally {
            for (String id : new String[] {oldId, newId, backId}) {
                if (id != null) {
                    API.delete("runtimes/" + id);
                }
            }
        }
        assertEquals(List.of(), DockerCli.containersLabelledOn(LOCAL, "dev.dockyard.conversation-id=" + conversation));
        assertEquals(List.of(), DockerCli.containersLabelledOn(DockerCli.NODE2,
                "dev.dockyard.conversation-id=" + conversation));
    }

    @Test
    void shouldKeepTheOldRuntimeServingWhenTheMigrationFails() {
        String conversation = "it-migrate-fail-" + UUID.randomUUID();
        String oldId = provisioned(conversation, Json.createObjectBuilder().build());
        try {
            run(oldId, "echo kept > /workspace/kept.txt");
            for (String step : List.of("workspace", "readiness")) {
                DockyardApi.Answer failed = API.migrate(oldId, "{\"node\": \"node2\"}", step, 120);
                JsonObject runtime = failed.json();
                assertEquals("ERROR", runtime.getString("status"), failed.body());
                assertTrue(runtime.getString("statusMessage").startsWith("Provisioning failed at step '" + step + "'"),
                        runtime.getString("statusMessage"));
                assertEquals(List.of(), DockerCli.containersLabelledOn(DockerCli.NODE2,
                        "dev.dockyard.runtime-id=" + runtime.getString("id")));
                assertEquals("READY", API.get("runtimes/" + oldId).json().getString("status"));
                assertEquals("kept", run(oldId, "cat /workspace/kept.txt"));
            }
        } finally {
            API.delete("runtimes/" + oldId);
        }
    }

    @Test
    void shouldTakeNoActionsWhileTheWorkspaceIsOnItsWay() {
        String conversation = "it-migrate-busy-" + UUID.randomUUID();
        String oldId = provisioned(conversation, Json.createObjectBuilder().build());
        String newId = null;
        try {
            DockyardApi.Answer started = API.migrate(oldId, "{\"node\": \"node2\"}", null, 0);
            assertEquals(202, started.status(), started.body());
            newId = started.json().getString("id");
            DockyardApi.Answer refused = API.post("runtimes/" + oldId + "/actions", DockyardApi.run("echo lost"));
            assertEquals(409, refused.status(), refused.body());
            assertTrue(refused.json().getString("type").endsWith("/runtime-migrating")
                    || refused.json().getString("type").endsWith("/runtime-not-ready"), refused.body());
            // a second move of the same runtime meanwhile is refused
            assertEquals(409, API.migrate(oldId, "{\"node\": \"node2\"}", null, 0).status());
            String id = newId;
            Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> API.get("runtimes/" + id).json().getString("status").equals("READY"));
            assertEquals("STOPPED", API.get("runtimes/" + oldId).json().getString("status"));
        } finally {
            API.delete("runtimes/" + oldId);
            if (newId != null) {
                API.delete("runtimes/" + newId);
            }
        }
    }

    @Test
    void shouldLandEveryWriteAnsweredDuringTheMoveInTheTargetAndRefuseTheRest() throws Exception {
        String conversation = "it-migrate-writes-" + UUID.randomUUID();
        String oldId = provisioned(conversation, Json.createObjectBuilder().build());
        String newId = null;
        ExecutorService writers = Executors.newFixedThreadPool(2);
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        AtomicBoolean moving = new AtomicBoolean(true);
        try {
            run(oldId, "mkdir -p /workspace/w");
            List<Future<?>> writing = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                writing.add(writers.submit(() -> {
                    for (int i = 0; moving.get() && i < 5000; i++) {
                        String name = "w" + thread + "-" + i;
                        answers.put(name, API.post("runtimes/" + oldId + "/actions", write("/workspace/w/" + name, name))
                                .status());
                    }
                }));
            }
            Thread.sleep(300);
            DockyardApi.Answer moved = API.migrate(oldId, "{\"node\": \"node2\"}", null, 120);
            Thread.sleep(200);
            moving.set(false);
            for (Future<?> w : writing) {
                w.get(60, TimeUnit.SECONDS);
            }
            assertEquals(201, moved.status(), moved.body());
            newId = moved.json().getString("id");

            List<String> landed = List.of(run(newId, "ls /workspace/w").split("\\s+"));
            int accepted = 0;
            int refused = 0;
            for (Map.Entry<String, Integer> answer : answers.entrySet()) {
                if (answer.getValue() == 200) {
                    accepted++;
                    assertTrue(landed.contains(answer.getKey()), answer.getKey() + " was written (200) but is not in the target");
                } else {
                    refused++;
                    assertEquals(409, answer.getValue(), answer.getKey());
                    assertFalse(landed.contains(answer.getKey()), answer.getKey() + " was refused but landed");
                }
            }
            assertTrue(accepted > 0 && refused > 0, accepted + " written, " + refused + " refused");
        } finally {
            moving.set(false);
            writers.shutdownNow();
            API.delete("runtimes/" + oldId);
            if (newId != null) {
                API.delete("runtimes/" + newId);
            }
        }
    }

    private static JsonObject write(String path, String content) {
        return Json.createObjectBuilder().add("action", "write")
                .add("args", Json.createObjectBuilder().add("path", path).add("content", content)).build();
    }

    @Test
    void shouldRefuseMigrationsThatCannotHappen() {
        String conversation = "it-migrate-refused-" + UUID.randomUUID();
        String id = provisioned(conversation, Json.createObjectBuilder().build());
        try {
            DockyardApi.Answer unknown = API.migrate(id, "{\"node\": \"atlantis\"}", null, 0);
            assertEquals(400, unknown.status(), unknown.body());
            assertTrue(unknown.json().getString("detail").contains("[local, node2, local1, cli1, k8s, remote1, remote2, plain]"), unknown.body());
            DockyardApi.Answer same = API.migrate(id, "{\"node\": \"local\"}", null, 0);
            assertEquals(409, same.status(), same.body());
            assertTrue(same.json().getString("type").endsWith("/migration-refused"), same.body());
            assertEquals(400, API.migrate(id, "{\"node\": 7}", null, 0).status());
            assertEquals(400, API.migrate(id, "not json", null, 0).status());
            assertEquals(404, API.migrate("rt-0000000000000000", "", null, 0).status());

            String stranger = API.post("users", Json.createObjectBuilder()
                    .add("userId", "migrate-stranger-" + UUID.randomUUID().toString().substring(0, 8)).build())
                    .json().getString("apiKey");
            assertEquals(404, API.withKey(stranger).migrate(id, "", null, 0).status());
        } finally {
            API.delete("runtimes/" + id);
        }
        DockyardApi.Answer stopped = API.migrate(id, "", null, 0);
        assertEquals(409, stopped.status(), stopped.body());
        assertTrue(stopped.json().getString("detail").contains("only a READY runtime"), stopped.body());
    }

    @Test
    void shouldRemoveOrphansOnEveryNode() {
        String orphan = "dockyard-it-orphan-" + UUID.randomUUID().toString().substring(0, 8);
        DockerCli.ok("-H", DockerCli.NODE2, "run", "-d", "--name", orphan, "--entrypoint", "sleep",
                "--label", "dev.dockyard.managed=true", "--label", "dev.dockyard.runtime-id=rt-never-was",
                "--label", "dev.dockyard.conversation-id=none",
                "--label", "dev.dockyard.control-plane=" + System.getProperty("dockyard.instance", "it"),
                "dockyard/sandbox:latest", "600");
        try {
            // grace period (20 s) plus one pass (every 10 s)
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> DockerCli.containersLabelledOn(DockerCli.NODE2, "dev.dockyard.runtime-id=rt-never-was")
                            .isEmpty());
        } finally {
            DockerCli.run("-H", DockerCli.NODE2, "rm", "-f", orphan);
        }
    }
}
