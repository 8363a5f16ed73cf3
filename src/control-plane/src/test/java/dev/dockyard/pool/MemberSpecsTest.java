package dev.dockyard.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.fakes.TestConfig;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sandbox a dormant pool member boots as. */
class MemberSpecsTest {

    private final TestConfig config = new TestConfig();

    @Test
    void shouldBootADormantServerWithTheMembersKeyAsSessionKeySoThatItListensBeyondItsLoopback() {
        // OpenHands' agent server binds 0.0.0.0 only with a session key (__main__.py), else 127.0.0.1,
        // where Dockyard cannot reach it (issue 31 item 2); the SDK sends run_as_user and fs_group 10001
        PoolProgram program = new PoolProgram(List.of("/bin/sh", "-c", "/usr/local/bin/openhands-agent-server --port 60000"),
                "/", "10001", Map.of("SESSION_API_KEY", "an admin's stale key", "LOG_LEVEL", "info"), 10001L);
        PoolDefinition pool = new PoolDefinition(new PoolSettings("agents", "agent-server:1", 1.0, 2048, List.of(),
                "local", 2, 1, program, null), "api", Instant.EPOCH);
        PoolMember member = new PoolMember("rt-0123456789abcdef", "agents", "local", "test", pool.shape(),
                "the-members-key", Instant.EPOCH);

        SandboxSpec spec = MemberSpecs.dormant(pool, program, member, config);

        Map<String, String> environment = spec.process().environment();
        assertEquals("the-members-key", environment.get("OH_SESSION_API_KEYS_0"));
        assertEquals("the-members-key", environment.get("SESSION_API_KEY"), "no other key than the member's");
        assertEquals("the-members-key", environment.get("OH_SECRET_KEY"), "its init key");
        assertEquals("true", environment.get("OH_DEFERRED_INIT"));
        assertEquals("info", environment.get("LOG_LEVEL"));
        assertEquals(10001L, spec.process().fsGroup());
        assertEquals("10001", spec.user());
    }

    @Test
    void shouldTellProgramsOfAnotherGroupApart() {
        PoolProgram plain = new PoolProgram(List.of("serve"), "/", "10001", Map.of());
        PoolProgram grouped = new PoolProgram(List.of("serve"), "/", "10001", Map.of(), 10001L);

        assertNotEquals(plain.shape(), grouped.shape());
        assertEquals(grouped.shape(), PoolProgram.fromJson(grouped.toJson()).shape());
        assertEquals(10001L, PoolProgram.fromJson(grouped.toJson()).fsGroup());
    }
}
