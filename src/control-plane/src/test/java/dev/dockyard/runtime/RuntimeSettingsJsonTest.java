package dev.dockyard.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dockyard.backend.SandboxIsolation;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuntimeSettingsJsonTest {

    @Test
    void shouldKeepTheIsolationAskedForAcrossTheDatabase() {
        SandboxIsolation isolation = new SandboxIsolation("gvisor", new SandboxIsolation.SandboxGpus(0,
                List.of("GPU-1", "GPU-2")), List.of("team-db"));
        assertEquals(isolation, RuntimeSettingsJson.isolation(RuntimeSettingsJson.isolation(isolation)));
        SandboxIsolation count = new SandboxIsolation(null, new SandboxIsolation.SandboxGpus(-1, List.of()), List.of());
        assertEquals(count, RuntimeSettingsJson.isolation(RuntimeSettingsJson.isolation(count)));
        SandboxIsolation writable = new SandboxIsolation(null, null, List.of(), false);
        assertEquals(writable, RuntimeSettingsJson.isolation(RuntimeSettingsJson.isolation(writable)));
    }

    @Test
    void shouldStoreNothingForTheNodeDefaults() {
        assertNull(RuntimeSettingsJson.isolation(SandboxIsolation.DEFAULT));
        assertEquals(SandboxIsolation.DEFAULT, RuntimeSettingsJson.isolation((String) null));
    }
}
