package dev.dockyard.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.e2b.SandboxIds;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.RuntimeMetadata;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** E2B's objects carry every member its SDKs require (Python raises on a missing one). */
class SandboxViewTest {

    private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

    private static SandboxRuntime runtime() {
        SandboxRuntime runtime = new SandboxRuntime("e2b-1", "alice", "fake", "dockyard/sandbox:latest", 1.5, 1024, 60,
                CREATED);
        runtime.describedAs(new RuntimeMetadata("base", Map.of("k", "v")));
        runtime.endsAt(CREATED.plusSeconds(300), EndAction.PAUSE);
        runtime.withEgress(new EgressPolicy(EgressPolicy.Mode.NONE, List.of()));
        return runtime;
    }

    @Test
    void shouldAnswerTheSandboxWithItsAccessTokenAndNoDomain() {
        SandboxRuntime runtime = runtime();
        JsonObject sandbox = SandboxView.sandbox(runtime);
        assertEquals(SandboxIds.sandboxId(runtime.id()), sandbox.getString("sandboxID"));
        assertEquals("base", sandbox.getString("templateID"));
        assertEquals("dockyard", sandbox.getString("clientID"));
        assertEquals("0.6.13", sandbox.getString("envdVersion"));
        assertEquals(runtime.serviceKey(), sandbox.getString("envdAccessToken"), "the key the service proxy takes");
        assertEquals(JsonValue.NULL, sandbox.get("domain"));
        assertEquals(JsonValue.NULL, sandbox.get("trafficAccessToken"));
    }

    @Test
    void shouldAnswerEveryRequiredMemberOfTheDetailAndTheListing() {
        SandboxRuntime runtime = runtime();
        JsonObject detail = SandboxView.detail(runtime, 10240);
        JsonObject listed = SandboxView.listedSandbox(runtime, 10240);
        for (JsonObject o : List.of(detail, listed)) {
            assertTrue(o.keySet().containsAll(Set.of("templateID", "sandboxID", "clientID", "startedAt", "cpuCount",
                    "memoryMB", "diskSizeMB", "endAt", "state", "envdVersion", "metadata")), o.keySet().toString());
            assertEquals("2026-01-01T00:00:00Z", o.getString("startedAt"));
            assertEquals("2026-01-01T00:05:00Z", o.getString("endAt"));
            assertEquals(2, o.getInt("cpuCount"), "1.5 CPUs, rounded up");
            assertEquals(1024, o.getInt("memoryMB"));
            assertEquals(10240, o.getInt("diskSizeMB"), "the default workspace size");
            assertEquals("running", o.getString("state"), "on its way up: running");
            assertEquals("v", o.getJsonObject("metadata").getString("k"));
        }
        assertEquals(false, detail.getBoolean("allowInternetAccess"));
        assertEquals("pause", detail.getJsonObject("lifecycle").getString("onTimeout"));
        assertEquals(false, detail.getJsonObject("lifecycle").getBoolean("autoResume"));
    }

    @Test
    void shouldSayPausedForAPausedRuntime() {
        SandboxRuntime runtime = runtime();
        runtime.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started", CREATED);
        runtime.transitionTo(RuntimeStatus.READY, "ready", CREATED);
        runtime.transitionTo(RuntimeStatus.PAUSED, "paused", CREATED);
        assertEquals("paused", SandboxView.detail(runtime, 1).getString("state"));
    }
}
