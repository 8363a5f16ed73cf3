package it.dev.dockyard.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ControlPlane;
import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The start's rehearsal of a provision (warmup.StartupRehearsal) on a control plane of its own, the
 * only test server with it on: before the server says it is ready, a user made for it provisioned
 * a runtime on the default node, ran an {@code echo} in it and deleted it, and nothing of it is left
 * but its audit entry.
 */
@ResourceLock(ControlPlane.OWN_SERVERS)
class StartupRehearsalIT {

    private static final String INSTANCE = "rehearsal-it";
    private static final String USER_PREFIX = "dockyard-warm-up-";
    private static ControlPlane server;
    private static DockyardApi api;

    @BeforeAll
    static void start() throws Exception {
        server = new ControlPlane(INSTANCE, ControlPlaneSettings.REHEARSAL_PORT, Map.of(
                "DOCKYARD_WARM_UP_REHEARSAL", "true",
                // ready only once the warm-up is done, however slow the machine is today
                "DOCKYARD_WARM_UP_READINESS_LIMIT", "300"));
        server.startFresh();
        api = server.admin();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void shouldRehearseAProvisionBeforeItIsReadyAndLeaveNothingButItsAuditEntry() throws Exception {
        JsonObject warmUp = warmUpCheck();
        String rehearsal = warmUp.getJsonObject("data").getString("rehearsal");
        assertTrue(rehearsal.startsWith("READY in "), warmUp.toString());
        assertTrue(rehearsal.contains("echo answered 200"), warmUp.toString());
        assertTrue(rehearsal.endsWith("deleted 204"), warmUp.toString());

        // no user, runtime or sandbox of it
        DockyardApi.Answer users = api.get("users");
        assertEquals(200, users.status(), users.body());
        assertTrue(users.json().getJsonArray("users").getValuesAs(JsonObject.class).stream()
                .noneMatch(u -> u.getString("userId").startsWith(USER_PREFIX)), users.body());
        DockyardApi.Answer runtimes = api.get("runtimes");
        assertEquals(200, runtimes.status(), runtimes.body());
        assertEquals(0, runtimes.json().getJsonArray("runtimes").size(), "the admin sees every runtime: " + runtimes.body());
        List<String> sandboxes = DockerCli.containersLabelled("dev.dockyard.control-plane=" + INSTANCE);
        assertEquals(List.of(), sandboxes);

        // its echo is on record, as a user's action
        DockyardApi.Answer audit = api.get("audit?limit=100");
        assertEquals(200, audit.status(), audit.body());
        assertTrue(audit.json().getJsonArray("entries").getValuesAs(JsonObject.class).stream()
                .anyMatch(e -> e.getString("userId").startsWith(USER_PREFIX) && e.getString("action").equals("run")
                        && e.getInt("exitCode", -1) == 0), audit.body());

        // its users' ids are reserved: an admin's user so named would be deleted as a leftover
        DockyardApi.Answer reserved = api.post("users", Json.createObjectBuilder()
                .add("userId", USER_PREFIX + "team").add("role", "user").build());
        assertEquals(409, reserved.status(), reserved.body());
        assertTrue(reserved.contentType().startsWith("application/problem+json"), reserved.contentType());

        // and the first provision of a user after the start is served as any other
        DockyardApi.Answer first = api.provision(Json.createObjectBuilder().add("conversationId", "after-rehearsal")
                .build(), 120);
        assertEquals("READY", first.json().getString("status"), first.body());
        assertEquals(204, api.delete("runtimes/" + first.json().getString("id")).status());
    }

    /** /health/ready's warm-up check, once the warm-up is done (the readiness limit waits for it). */
    private static JsonObject warmUpCheck() {
        HttpClient http = HttpClient.newHttpClient();
        AtomicReference<JsonObject> check = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/health/ready"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            JsonObject health = Json.createReader(new StringReader(ready.body())).readObject();
            health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                    .filter(c -> c.getString("name").equals("warm-up") && c.containsKey("data")
                            && c.getJsonObject("data").containsKey("tookMs"))
                    .findFirst().ifPresent(check::set);
            return check.get() != null;
        });
        return check.get();
    }
}
