package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runtime body's {@code sandbox.executorServer}: always what its sandbox runs. */
class RuntimeViewTest {

    private static SandboxRuntime runtime() {
        return new SandboxRuntime("conv", "alice", "docker", "dockyard/sandbox:latest", 1, 1024, 120,
                Instant.parse("2026-11-29T00:00:00Z"));
    }

    private static JsonValue executorServer(SandboxRuntime runtime) {
        JsonObject view = RuntimeView.of(runtime);
        return view.getJsonObject("sandbox").get("executorServer");
    }

    @Test
    void shouldShowTheServerItsSandboxStartedOn() {
        SandboxRuntime runtime = runtime();
        runtime.startsExecutorOn(ExecutorServer.EMBEDDED);
        assertEquals("\"embedded\"", executorServer(runtime).toString());
        runtime.startsExecutorOn(ExecutorServer.LIBERTY);
        assertEquals("\"liberty\"", executorServer(runtime).toString());
    }

    @Test
    void shouldShowLibertyForARuntimeRecordedBeforeTheChoiceAndNoneForAnImagesOwnProgram() {
        assertEquals("\"liberty\"", executorServer(runtime()).toString(), "what such a sandbox ran");
        SandboxRuntime program = runtime();
        program.runsProgram(new SandboxProgram(List.of("serve"), null, Map.of(), null, null, 3000, null));
        assertEquals(JsonValue.ValueType.NULL, executorServer(program).getValueType(), "it runs no executor");
    }
}
