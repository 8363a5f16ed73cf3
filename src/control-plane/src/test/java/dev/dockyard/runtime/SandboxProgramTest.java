package dev.dockyard.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SandboxProgramTest {

    private static SandboxRuntime runtime() {
        return new SandboxRuntime("conversation", "alice", "docker", "img", 1, 512, 60, Instant.EPOCH);
    }

    @Test
    void shouldKeepTheProgramAndPortsOfARuntimeOfAnotherImage() {
        SandboxRuntime runtime = runtime();
        SandboxProgram program = new SandboxProgram(List.of("/bin/server", "--port", "60000"), "/workspace",
                Map.of("TOKEN", "s3cret-value"), "10001:10001", 10001L, 60000, "http://127.0.0.1:9080");
        runtime.runsProgram(program);
        runtime.publishesPorts(Map.of("vscode", 60001, "work-1", 12000));
        assertEquals(program, runtime.program().orElseThrow());
        assertEquals(Map.of("vscode", 60001, "work-1", 12000), runtime.servicePorts());
        assertEquals(60000, runtime.mainPort(8000));
        assertFalse(program.toString().contains("s3cret-value"), "no value in what gets logged");
    }

    @Test
    void shouldRunTheExecutorWhenThereIsNoProgram() {
        SandboxRuntime runtime = runtime();
        assertTrue(runtime.program().isEmpty());
        assertEquals(Map.of(), runtime.servicePorts());
        assertEquals(8000, runtime.mainPort(8000));
    }

    @Test
    void shouldHandOutANewServiceKeyApartFromTheSandboxsKey() {
        SandboxRuntime runtime = runtime();
        String first = runtime.serviceKey();
        assertNotEquals(runtime.sessionKey(), first);
        assertNotEquals(first, runtime.renewServiceKey());
        assertEquals(runtime.serviceKey().length(), first.length());
    }
}
