package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** GET /api/v1/runtimes/{id}/events: one status event per transition, history first, then live. */
class StatusEventsIT {

    private static final DockyardApi API = new DockyardApi();

    private static CompletableFuture<List<JsonObject>> follow(String id) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(System.getProperty("dockyard.url",
                        "http://127.0.0.1:19080") + "/api/v1/runtimes/" + id + "/events"))
                .header("X-API-Key", System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret"))
                .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(120)).GET().build();
        return HttpClient.newHttpClient().sendAsync(request, HttpResponse.BodyHandlers.ofLines())
                .thenApply(response -> {
                    assertEquals(200, response.statusCode());
                    assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
                    List<JsonObject> events = new ArrayList<>();
                    try (Stream<String> lines = response.body()) {
                        lines.filter(l -> l.startsWith("data:")).forEach(l -> {
                            try (var reader = Json.createReader(new StringReader(l.substring(5).strip()))) {
                                events.add(reader.readObject());
                            }
                        });
                    }
                    return events;
                });
    }

    @Test
    void shouldStreamEveryTransitionUntilTheRuntimeStops() throws Exception {
        DockyardApi.Answer answer = API.post("runtimes", Json.createObjectBuilder()
                .add("conversationId", "it-events-" + UUID.randomUUID()).build());
        assertEquals(202, answer.status(), answer.body());
        String id = answer.json().getString("id");
        CompletableFuture<List<JsonObject>> stream = follow(id);
        Awaitility.await().atMost(Duration.ofSeconds(90))
                .until(() -> API.get("runtimes/" + id).json().getString("status").equals("READY"));
        assertEquals(204, API.delete("runtimes/" + id).status());

        List<JsonObject> events = stream.get(30, TimeUnit.SECONDS);
        List<String> statuses = events.stream().map(e -> e.getString("status")).toList();
        assertEquals(List.of("STARTING_RUNTIME", "RUNTIME_STARTED", "READY", "STOPPED"), statuses);
        for (JsonObject event : events) {
            assertTrue(event.containsKey("message") && event.containsKey("at"), event.toString());
        }
        assertTrue(events.get(2).getString("message").startsWith("Ready in "), events.get(2).toString());
    }

    @Test
    void shouldReplayTheHistoryOfAFinishedRuntimeAndEnd() throws Exception {
        // a provisioning that fails at its image step (an absent image is refused before it starts now)
        DockyardApi.Answer answer = API.provisionFailingAt(Json.createObjectBuilder()
                .add("conversationId", "it-events-bad-" + UUID.randomUUID()).build(), "image", 0);
        String id = answer.json().getString("id");
        Awaitility.await().atMost(Duration.ofSeconds(60))
                .until(() -> API.get("runtimes/" + id).json().getString("status").equals("ERROR"));
        List<String> statuses = follow(id).get(30, TimeUnit.SECONDS).stream().map(e -> e.getString("status")).toList();
        assertEquals(List.of("STARTING_RUNTIME", "ERROR"), statuses);
    }
}
