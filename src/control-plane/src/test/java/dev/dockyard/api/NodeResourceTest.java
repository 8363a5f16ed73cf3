package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.dockyard.placement.NodeCapacity;
import dev.dockyard.placement.NodeReport;
import dev.dockyard.placement.NodeState;
import dev.dockyard.placement.NodeUsage;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NodeResourceTest {

    private static final Instant AT = Instant.parse("2026-11-23T21:40:01Z");

    @Test
    void shouldShowTypeHealthUsageAndCapacityWithNullForUnbounded() {
        JsonObject view = NodeResource.view(new NodeState("local", "docker", new NodeCapacity(2, null),
                new NodeUsage(1, 1024), new NodeReport(true, AT, null)));

        assertEquals("{\"name\":\"local\",\"type\":\"docker\",\"healthy\":true,\"lastCheckedAt\":\"2026-11-23T21:40:01Z\","
                + "\"runtimes\":1,\"memoryMb\":1024,\"capacity\":{\"maxRuntimes\":2,\"maxMemoryMb\":null}}", view.toString());
        assertFalse(view.containsKey("error"), "no error while healthy");
    }

    @Test
    void shouldNameTheErrorOfAnUnhealthyNode() {
        JsonObject view = NodeResource.view(new NodeState("node2", "docker", NodeCapacity.UNBOUNDED, NodeUsage.NONE,
                new NodeReport(false, AT, "ConnectException: Connection refused")));

        assertFalse(view.getBoolean("healthy"));
        assertEquals("ConnectException: Connection refused", view.getString("error"));
        assertEquals(JsonValue.NULL, view.getJsonObject("capacity").get("maxRuntimes"));
    }
}
