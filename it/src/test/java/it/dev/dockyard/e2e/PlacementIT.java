package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ControlPlane;
import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.Forwarder;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Placement across two real Docker engines ("local" and "node2", the second reached through a
 * TCP forwarder this test starts and stops), each of capacity 2: five concurrent provisions are
 * placed 2 + 2 and the fifth refused 429; once node2's engine is unreachable it shows unhealthy in
 * GET /nodes and /health/ready and takes no runtime, while local still does.
 *
 * <p>It runs on a control plane of its own (its own database, instance and port): a node's
 * capacity counts every live runtime on it, so on the shared server a runtime another suite left
 * would take one of the four slots.
 */
@ResourceLock(ControlPlane.OWN_SERVERS)
class PlacementIT {

    private static final String NODE2_SOCKET = "/var/run/dockyard-node2.sock";
    private static final String LOCAL = "unix:///var/run/docker.sock";

    private static DockyardApi API;
    private static ControlPlane server;

    private static JsonObject node(String name) {
        DockyardApi.Answer nodes = API.get("nodes");
        assertEquals(200, nodes.status(), nodes.body());
        return nodes.json().getJsonArray("nodes").getValuesAs(JsonObject.class).stream()
                .filter(n -> n.getString("name").equals(name)).findFirst().orElseThrow();
    }

    private static DockyardApi.Answer provision(String conversation, String node) {
        var body = Json.createObjectBuilder().add("conversationId", conversation);
        if (node != null) {
            body.add("node", node);
        }
        return API.post("runtimes", body.build());
    }

    private static HttpResponse<String> ready() throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(server.url() + "/health/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String check(JsonObject health, String name) {
        return health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(c -> c.getString("name").equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + name + " in " + health)).getString("status");
    }

    @Test
    void shouldPlaceTwoAndTwoRefuseTheFifthAndSkipANodeWhoseEngineStopped() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<String> ids = new ArrayList<>();
        Forwarder forwarder = Forwarder.to(Path.of(NODE2_SOCKET));
        server = new ControlPlane("placement-it", ControlPlaneSettings.PLACEMENT_PORT, Map.of(
                "DOCKYARD_NODES", "local,node2",
                "DOCKYARD_NODE_LOCAL_MAX_RUNTIMES", "2",
                "DOCKYARD_NODE_NODE2_MAX_RUNTIMES", "2",
                "DOCKYARD_NODE_NODE2_DOCKER_HOST", forwarder.dockerHost(),
                "DOCKYARD_NODES_HEALTH_INTERVAL", "1"));
        try {
            server.startFresh();
            API = server.admin();
            JsonObject local = node("local");
            assertEquals(0, local.getInt("runtimes"), "a fresh control plane holds no runtime: " + local);
            assertEquals(0, node("node2").getInt("runtimes"));
            assertEquals("docker", local.getString("type"));
            assertTrue(local.getBoolean("healthy"), local.toString());
            assertEquals(2, local.getJsonObject("capacity").getInt("maxRuntimes"));
            assertEquals(JsonValue.NULL, local.getJsonObject("capacity").get("maxMemoryMb"));
            DockyardApi.Answer user = API.post("users", Json.createObjectBuilder()
                    .add("userId", "it-placement-" + run).add("role", "user").build());
            assertEquals(201, user.status(), user.body());
            DockyardApi.Answer forbidden = API.withKey(user.json().getString("apiKey")).get("nodes");
            assertEquals(403, forbidden.status(), forbidden.body());

            // five at once on 2 + 2 slots
            long postedAt = System.nanoTime();
            List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String conversation = "it-placement-" + run + "-" + i;
                posts.add(CompletableFuture.supplyAsync(() -> provision(conversation, null)));
            }
            Map<String, Integer> placed = new HashMap<>();
            List<DockyardApi.Answer> refused = new ArrayList<>();
            for (CompletableFuture<DockyardApi.Answer> post : posts) {
                DockyardApi.Answer answer = post.get();
                if (answer.status() == 202) {
                    ids.add(answer.json().getString("id"));
                    placed.merge(answer.json().getString("node"), 1, Integer::sum);
                } else {
                    refused.add(answer);
                }
            }
            long answeredMs = (System.nanoTime() - postedAt) / 1_000_000;
            assertEquals(Map.of("local", 2, "node2", 2), placed);
            assertEquals(1, refused.size());
            DockyardApi.Answer full = refused.get(0);
            assertEquals(429, full.status(), full.body());
            assertEquals("application/problem+json", full.contentType());
            assertEquals("https://dockyard.dev/problems/no-capacity", full.json().getString("type"));
            assertEquals("10", full.raw().headers().firstValue("Retry-After").orElse(""));
            assertEquals(2, node("local").getInt("runtimes"));
            assertEquals(2, node("node2").getInt("runtimes"));
            assertTrue(node("node2").getInt("memoryMb") >= 2 * 128, node("node2").toString());

            // deleting frees the room; node2's sandboxes go through the forwarder while it runs
            for (String id : ids) {
                assertEquals(204, API.delete("runtimes/" + id).status());
            }
            Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> ids.stream().allMatch(id -> DockerCli.containersLabelledOn(DockerCli.NODE2,
                            "dev.dockyard.runtime-id=" + id).isEmpty()));
            ids.clear();
            assertEquals(0, node("node2").getInt("runtimes"));

            // node2's engine becomes unreachable: unhealthy, and it takes nothing
            forwarder.close();
            long stoppedAt = System.nanoTime();
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !node("node2").getBoolean("healthy"));
            System.out.println("placement: five concurrent provisions answered (4 x 202, 1 x 429) in " + answeredMs
                    + " ms; node2 unhealthy " + (System.nanoTime() - stoppedAt) / 1_000_000
                    + " ms after its engine became unreachable (health interval 1 s)");
            JsonObject sick = node("node2");
            assertTrue(sick.containsKey("error") && !sick.getString("error").isBlank(), sick.toString());
            assertTrue(sick.containsKey("lastCheckedAt"), sick.toString());
            HttpResponse<String> health = ready();
            assertEquals(503, health.statusCode(), health.body());
            JsonObject checks = DockyardApi.parse(health.body());
            assertEquals("DOWN", check(checks, "node-node2"));
            assertEquals("UP", check(checks, "node-local"));

            DockyardApi.Answer named = provision("it-placement-" + run + "-named", "node2");
            assertEquals(503, named.status(), named.body());
            assertEquals("https://dockyard.dev/problems/node-unavailable", named.json().getString("type"));
            assertEquals("node2", named.json().getString("node"));

            DockyardApi.Answer served = API.provision(Json.createObjectBuilder()
                    .add("conversationId", "it-placement-" + run + "-after").build(), 120);
            assertEquals(201, served.status(), served.body());
            ids.add(served.json().getString("id"));
            assertEquals("local", served.json().getString("node"));
            assertEquals("READY", served.json().getString("status"));
            DockyardApi.Answer second = provision("it-placement-" + run + "-second", null);
            assertEquals(202, second.status(), second.body());
            ids.add(second.json().getString("id"));
            assertEquals("local", second.json().getString("node"));
            DockyardApi.Answer third = provision("it-placement-" + run + "-third", null);
            assertEquals(429, third.status(), "local is full and node2 takes nothing: " + third.body());
            assertFalse(third.body().contains("node2 "), "an unhealthy node is not offered: " + third.body());
        } finally {
            for (String id : ids) {
                API.delete("runtimes/" + id);
            }
            // its node2 sandboxes are reached through the forwarder, closed after they are gone
            try {
                // their sandboxes go before the server stops: no other control plane sweeps its instance's
                Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                        .until(() -> ids.stream().allMatch(id -> DockerCli.containersLabelledOn(LOCAL,
                                "dev.dockyard.runtime-id=" + id).isEmpty() && DockerCli.containersLabelledOn(
                                DockerCli.NODE2, "dev.dockyard.runtime-id=" + id).isEmpty()));
            } catch (RuntimeException slow) {
                System.out.println("sandboxes still there before the server stops: " + slow);
            }
            server.stop();
            forwarder.close();
        }
    }
}
