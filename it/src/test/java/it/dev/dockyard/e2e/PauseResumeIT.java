package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Pause freezes the sandbox and refuses actions; resume answers once READY, with memory and shell intact. */
class PauseResumeIT {

    private static final DockyardApi API = new DockyardApi();

    @Test
    void shouldFreezeAndThawKeepingTheShellAndItsProcesses() {
        DockyardApi.Answer created = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-pause-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, created.status(), created.body());
        String id = created.json().getString("id");
        try {
            API.act(id, DockyardApi.run("cd /tmp && export KEPT=still-here && (sleep 600 &)"));

            DockyardApi.Answer paused = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
            assertEquals(200, paused.status(), paused.body());
            assertEquals("PAUSED", paused.json().getString("status"));
            assertEquals("true", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"));
            DockyardApi.Answer refused = API.post("runtimes/" + id + "/actions", DockyardApi.run("true"));
            assertEquals(409, refused.status());
            assertEquals("PAUSED", refused.json().getString("runtimeStatus"));
            assertEquals(200, API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build()).status(),
                    "pausing twice is fine");

            DockyardApi.Answer resumed = API.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build());
            assertEquals(200, resumed.status(), resumed.body());
            assertEquals("READY", resumed.json().getString("status"));
            assertTrue(resumed.json().getString("statusMessage").startsWith("Resumed in "), resumed.body());
            assertEquals("false", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"));
            System.out.printf("pause/resume: %s; %s%n", paused.json().getString("statusMessage"),
                    resumed.json().getString("statusMessage"));
            JsonObject shell = API.act(id, DockyardApi.run("echo $(pwd) $KEPT $(pgrep -c -f 'sleep 600')"));
            assertEquals("/tmp still-here 1", shell.getString("content").strip());
        } finally {
            API.delete("runtimes/" + id);
        }
        DockyardApi.Answer gone = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
        assertEquals(409, gone.status(), gone.body());
        assertEquals(404, API.post("runtimes/rt-0000000000000000/resume", Json.createObjectBuilder().build()).status());
    }

    /**
     * A sandbox whose executor exited (its container stops with it) cannot be frozen: the pause is a
     * 503 with {@code Retry-After} while Dockyard starts the sandbox again, not a 502 from the engine
     * (the soak's full run, 2026-11-30), and the pause after that recovery succeeds.
     */
    @Test
    void shouldAskToRetryAPauseOfASandboxWhoseExecutorJustExited() throws InterruptedException {
        DockyardApi.Answer created = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-pause-stopped-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, created.status(), created.body());
        String id = created.json().getString("id");
        try {
            // a reconciler pass may find the stopped sandbox between the kill and the pause (it then
            // answers 409 while it disconnects and starts it again): killed again once it is back
            DockyardApi.Answer refused = null;
            for (int attempt = 0; attempt < 3 && (refused == null || refused.status() != 503); attempt++) {
                awaitPausable(id);
                DockerCli.ok("kill", "dockyard-" + id);
                refused = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
            }
            assertEquals(503, refused.status(), refused.body());
            assertEquals("https://dockyard.dev/problems/executor-unavailable", refused.json().getString("type"));
            assertEquals("2", refused.raw().headers().firstValue("Retry-After").orElse(""), refused.body());
            assertTrue(refused.json().getString("detail").contains("its sandbox has stopped"), refused.body());

            // started again by the reconciler, which the refusal asked for a pass now
            long deadline = System.nanoTime() + 60_000_000_000L;
            DockyardApi.Answer paused = refused;
            while (System.nanoTime() < deadline) {
                paused = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
                if (paused.status() != 503 && paused.status() != 409) {
                    break;
                }
                Thread.sleep(500);
            }
            assertEquals(200, paused.status(), paused.body());
            assertEquals("PAUSED", paused.json().getString("status"));
            assertEquals("true", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"));
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    /** Until the runtime is READY with its container running (bounded: a minute). */
    private static void awaitPausable(String id) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            DockyardApi.Answer runtime = API.get("runtimes/" + id);
            if (runtime.status() == 200 && "READY".equals(runtime.json().getString("status"))
                    && "true".equals(DockerCli.inspect("dockyard-" + id, "{{.State.Running}}"))) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("runtime " + id + " was not READY and running again within a minute");
    }
}
