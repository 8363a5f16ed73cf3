package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolSettings;
import dev.dockyard.pool.WarmPools;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A pool body's {@code sandbox.executorServer}, read as a provision body's and shown back. */
class PoolResourceTest {

    private final PoolResource resource = new PoolResource();
    private final List<PoolSettings> declared = new ArrayList<>();

    @BeforeEach
    void wire() {
        resource.nodes = new FakeNodes("local");
        resource.config = new TestConfig() {
            @Override
            public double sandboxCpus() {
                return 1;
            }

            @Override
            public int sandboxMemoryMb() {
                return 1024;
            }
        };
    }

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    /** The settings a PUT declares, and the pool's body once declared so. */
    private JsonObject put(String body) {
        PoolSettings settings = resource.read("p", json(body));
        declared.add(settings);
        return PoolResource.view(new WarmPools.PoolState(new PoolDefinition(settings, "api", Instant.EPOCH), 0, 0, 0,
                0, 0, null));
    }

    private Problem refusal(String body) {
        return assertThrows(Problem.ProblemException.class, () -> put(body)).problem();
    }

    @Test
    void shouldKeepThePoolOnTheServerItNamesAndShowIt() {
        JsonObject view = put("{\"size\":1,\"sandbox\":{\"executorServer\":\"liberty\"}}");

        assertEquals(ExecutorServer.LIBERTY, declared.get(0).executorServer());
        assertEquals("liberty", view.getJsonObject("sandbox").getString("executorServer"));
    }

    @Test
    void shouldLeaveAPoolThatNamesNoServerToItsNode() {
        put("{\"size\":1}");
        put("{\"size\":1,\"sandbox\":{}}");

        // settled to the node's setting by WarmPools#declare
        assertNull(declared.get(0).executorServer());
        assertNull(declared.get(1).executorServer());
    }

    @Test
    void shouldRefuseAnUnknownServerOrMemberWithA400NamingIt() {
        Problem unknown = refusal("{\"size\":1,\"sandbox\":{\"executorServer\":\"tomcat\"}}");
        assertEquals(400, unknown.kind().status());
        assertEquals("sandbox.executorServer 'tomcat' is not one of [embedded, liberty]", unknown.detail());
        assertEquals(400, refusal("{\"size\":1,\"sandbox\":{\"cpus\":2}}").kind().status());
        assertEquals(400, refusal("{\"size\":1,\"sandbox\":\"liberty\"}").kind().status());
        assertEquals(List.of(), declared, "nothing is declared");
    }
}
