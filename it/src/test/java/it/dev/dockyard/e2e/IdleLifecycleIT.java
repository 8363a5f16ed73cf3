package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The idle lifecycle on the real engine, with per-request timeouts of a few seconds (the IT
 * control plane sweeps every second): idle pause and transparent resume, hibernation and waking
 * with the workspace kept, keepAlive and the TTL.
 */
class IdleLifecycleIT {

    private static final DockyardApi API = new DockyardApi();

    private static String provision(String prefix, JsonObjectBuilder sandbox) {
        DockyardApi.Answer created = API.provision(Json.createObjectBuilder()
                .add("conversationId", prefix + UUID.randomUUID())
                .add("sandbox", sandbox.add("env", Json.createObjectBuilder().add("IDLE_CANARY", "idle-canary-7f3")))
                .build(), 120);
        assertEquals(201, created.status(), created.body());
        return created.json().getString("id");
    }

    private static JsonObject runtime(String id) {
        return API.get("runtimes/" + id).json();
    }

    private static JsonObject awaitStatus(String id, String status, Duration within) {
        Awaitility.await().atMost(within).pollInterval(Duration.ofMillis(200))
                .until(() -> status.equals(runtime(id).getString("status")));
        return runtime(id);
    }

    /** Runs a command, timing the whole answer: {@code [ms, content]}. */
    private static Object[] timed(String id, String command) {
        long start = System.nanoTime();
        JsonObject observation = API.act(id, DockyardApi.run(command));
        return new Object[] {(System.nanoTime() - start) / 1_000_000, observation.getString("content").strip()};
    }

    @Test
    void shouldPauseIdleRuntimeAndResumeItTransparentlyOnTheNextActionKeepingTheShell() {
        String id = provision("it-idle-", Json.createObjectBuilder().add("idleTimeoutSeconds", 2));
        try {
            API.act(id, DockyardApi.run("cd /tmp && export KEPT=still-here"));
            long warm = (long) timed(id, "echo warm")[0];

            JsonObject paused = awaitStatus(id, "PAUSED", Duration.ofSeconds(15));
            assertTrue(paused.getString("statusMessage").startsWith("Idle for "), paused.toString());
            assertEquals("idle", paused.getJsonObject("lifecycle").getString("pausedBy"));
            assertEquals(2, paused.getJsonObject("lifecycle").getInt("idleTimeoutSeconds"));
            assertEquals("true", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"), "frozen by the engine");

            Object[] first = timed(id, "echo $(pwd) $KEPT $IDLE_CANARY");
            assertEquals("/tmp still-here idle-canary-7f3", first[1], "the shell and its variables survived the pause");
            JsonObject resumed = runtime(id);
            assertEquals("READY", resumed.getString("status"));
            assertTrue(resumed.getString("statusMessage").startsWith("Woken by an action after "), resumed.toString());
            assertEquals("false", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"));
            long after = (long) timed(id, "echo warm")[0];
            System.out.printf("idle resume: first action after the idle pause answered in %d ms "
                    + "(warm actions: %d ms before, %d ms after)%n", first[0], warm, after);

            String events = API.events(id, Duration.ofSeconds(1));
            assertTrue(events.contains("Idle for ") && events.contains("Woken by an action"), events);
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldHibernateAndWakeByActionAndByResumeKeepingWorkspaceFiles() {
        String id = provision("it-hibernate-", Json.createObjectBuilder().add("idleTimeoutSeconds", 2));
        String container = "dockyard-" + id;
        try {
            API.act(id, DockyardApi.run("echo kept-across-hibernation > /workspace/kept.txt"));
            awaitStatus(id, "PAUSED", Duration.ofSeconds(15));

            long hibernating = System.nanoTime();
            DockyardApi.Answer hibernated = API.post("runtimes/" + id + "/hibernate", Json.createObjectBuilder().build());
            long hibernateMs = (System.nanoTime() - hibernating) / 1_000_000;
            assertEquals(200, hibernated.status(), hibernated.body());
            assertEquals("HIBERNATED", hibernated.json().getString("status"));
            assertEquals("false", DockerCli.inspect(container, "{{.State.Running}}"), "the container is stopped");
            assertEquals("0", DockerCli.inspect(container, "{{.State.Pid}}"), "no process left: its memory is freed");

            // woken by an action: it was asleep for idleness
            Object[] woken = timed(id, "cat /workspace/kept.txt; echo $IDLE_CANARY");
            assertEquals("kept-across-hibernation\nidle-canary-7f3", woken[1], "files kept, configuration pushed again");
            JsonObject ready = runtime(id);
            assertEquals("READY", ready.getString("status"));
            assertTrue(ready.getString("statusMessage").startsWith("Woken by an action after "), ready.toString());
            assertEquals("true", DockerCli.inspect(container, "{{.State.Running}}"));
            System.out.printf("hibernate: answered in %d ms; wake by an action: answered in %d ms (%s)%n",
                    hibernateMs, woken[0], ready.getString("statusMessage"));

            // paused by the user, then hibernated: an action is refused, POST /resume wakes it
            assertEquals(200, API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build()).status());
            assertEquals(200, API.post("runtimes/" + id + "/hibernate", Json.createObjectBuilder().build()).status());
            assertEquals("false", DockerCli.inspect(container, "{{.State.Running}}"));
            DockyardApi.Answer refused = API.post("runtimes/" + id + "/actions", DockyardApi.run("true"));
            assertEquals(409, refused.status(), refused.body());
            assertEquals("HIBERNATED", refused.json().getString("runtimeStatus"));
            assertEquals("request", runtime(id).getJsonObject("lifecycle").getString("pausedBy"));

            long start = System.nanoTime();
            DockyardApi.Answer resumed = API.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build());
            long resumeMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, resumed.status(), resumed.body());
            assertEquals("READY", resumed.json().getString("status"));
            assertTrue(resumed.json().getString("statusMessage").startsWith("Woken by POST /resume"), resumed.body());
            assertEquals("kept-across-hibernation", API.act(id, DockyardApi.run("cat /workspace/kept.txt"))
                    .getString("content").strip());
            System.out.printf("hibernate wake by POST /resume: answered in %d ms%n", resumeMs);
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldKeepAKeepAliveRuntimeAwakeAndStopItWhenItsTtlIsReached() {
        String id = provision("it-ttl-", Json.createObjectBuilder().add("keepAlive", true)
                .add("idleTimeoutSeconds", 1).add("ttlSeconds", 15));
        try {
            JsonObject lifecycle = runtime(id).getJsonObject("lifecycle");
            assertTrue(lifecycle.getBoolean("keepAlive"));
            assertEquals(15, lifecycle.getInt("ttlSeconds"));
            // idle for longer than its idle timeout: kept alive, not paused
            Awaitility.await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                    .until(() -> true);
            assertEquals("READY", runtime(id).getString("status"));

            JsonObject stopped = awaitStatus(id, "STOPPED", Duration.ofSeconds(30));
            assertTrue(stopped.getString("statusMessage").startsWith("Stopped: TTL of 15 s reached"), stopped.toString());
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                    .until(() -> DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id).isEmpty());
            assertNotEquals(0, DockerCli.run("inspect", "dockyard-" + id).exitCode(), "its container is gone");
        } finally {
            API.delete("runtimes/" + id);
        }
    }
}
