package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A failure at each provisioning step leaves nothing behind: no labelled sandbox, the quota unit
 * released, the runtime in ERROR naming the step. The user's quota is one runtime, so the very
 * next provision only succeeds if the failed one was released.
 */
class FaultInjectionIT {

    private static final DockyardApi ADMIN = new DockyardApi();

    @ParameterizedTest(name = "failure at step {0}")
    @ValueSource(strings = {"credentials", "image", "turn", "create", "start", "record", "readiness", "inject", "limits"})
    void shouldLeaveNothingBehindWhenAStepFails(String step) throws Exception {
        String userId = "fault-" + step + "-" + UUID.randomUUID().toString().substring(0, 8);
        String key = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId).build()).json()
                .getString("apiKey");
        assertEquals(200, ADMIN.put("users/" + userId + "/quota", Json.createObjectBuilder().add("maxRuntimes", 1)
                .build()).status());
        DockyardApi user = ADMIN.withKey(key);

        HttpRequest request = HttpRequest.newBuilder(URI.create(System.getProperty("dockyard.url",
                        "http://127.0.0.1:19080") + "/api/v1/runtimes"))
                .header("X-API-Key", key).header("Content-Type", "application/json").header("Prefer", "wait=90")
                .header("X-Dockyard-Fail-At", step).timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(Json.createObjectBuilder()
                        .add("conversationId", "it-fault-" + step).build().toString())).build();
        HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        JsonObject runtime = Json.createReader(new StringReader(answer.body())).readObject();
        String id = runtime.getString("id");
        assertEquals("ERROR", runtime.getString("status"), answer.body());
        assertTrue(runtime.getString("statusMessage").startsWith("Provisioning failed at step '" + step + "'"),
                runtime.getString("statusMessage"));
        assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + id));
        assertEquals(List.of(), DockerCli.volumesLabelled("dev.dockyard.runtime-id=" + id), "its workspace volume too");

        // the quota unit came back: the same user (quota 1) gets a working runtime at once
        DockyardApi.Answer next = user.provision(Json.createObjectBuilder()
                .add("conversationId", "it-fault-" + step + "-after").build(), 120);
        assertEquals(201, next.status(), next.body());
        assertEquals(204, user.delete("runtimes/" + next.json().getString("id")).status());
    }
}
