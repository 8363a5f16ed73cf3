package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * ERROR_RUNTIME_DISCONNECTED is not a dead end: a runtime whose container stopped (as an engine
 * restart stops them all) is started again by the reconciler and is READY again once its executor
 * answers, and one whose container is gone is released after the grace (30 s here,
 * DOCKYARD_RECONCILER_DISCONNECTED_GRACE), freeing its conversation and quota.
 */
class DisconnectedRuntimeIT {

    private static final DockyardApi API = new DockyardApi();

    private static String ready(String conversation) {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                .add("sandbox", Json.createObjectBuilder().add("env", Json.createObjectBuilder()
                        .add("GREETING", "still configured"))).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        return answer.json().getString("id");
    }

    private static JsonObject awaitStatus(String id, String status, Duration within) {
        Awaitility.await().atMost(within).pollInterval(Duration.ofMillis(500))
                .until(() -> API.get("runtimes/" + id).json().getString("status").equals(status));
        return API.get("runtimes/" + id).json();
    }

    private static String run(String id, String command) {
        return API.act(id, DockyardApi.run(command)).getString("content").strip();
    }

    @Test
    void shouldStartAStoppedSandboxAgainAndBeReadyWithItsWorkspaceAndConfiguration() {
        String id = ready("it-disconnected-" + UUID.randomUUID());
        try {
            run(id, "echo kept > /workspace/kept.txt");
            DockerCli.ok("stop", "-t", "1", "dockyard-" + id);
            JsonObject lost = awaitStatus(id, "ERROR_RUNTIME_DISCONNECTED", Duration.ofSeconds(40));
            assertTrue(lost.getString("statusMessage").contains("its container stopped"), lost.toString());

            JsonObject back = awaitStatus(id, "READY", Duration.ofSeconds(30));
            assertTrue(back.getString("statusMessage").startsWith("Reconnected"), back.toString());
            assertEquals("kept", run(id, "cat /workspace/kept.txt"));
            assertEquals("still configured", run(id, "echo $GREETING"));
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldReleaseTheConversationAfterTheGraceWhenItsContainerIsGone() {
        String conversation = "it-released-" + UUID.randomUUID();
        String id = ready(conversation);
        String next = null;
        try {
            DockerCli.ok("rm", "-f", "-v", "dockyard-" + id);
            awaitStatus(id, "ERROR_RUNTIME_DISCONNECTED", Duration.ofSeconds(40));
            assertEquals(409, API.post("runtimes", Json.createObjectBuilder().add("conversationId", conversation)
                    .build()).status(), "held while disconnected");

            JsonObject released = awaitStatus(id, "ERROR", Duration.ofSeconds(60));
            assertTrue(released.getString("statusMessage").startsWith("Released after 30 s disconnected"),
                    released.toString());
            next = ready(conversation);
            assertEquals(List.of("dockyard-" + next), DockerCli.containersLabelled("dev.dockyard.conversation-id="
                    + conversation));
        } finally {
            API.delete("runtimes/" + id);
            if (next != null) {
                API.delete("runtimes/" + next);
            }
        }
    }
}
