package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The security analyzer and policies end to end: a HIGH action waits for confirmation under the
 * default policy and runs once confirmed; a strict agent blocks HIGH and asks for MEDIUM; every
 * action, refused or run, lands in the audit trail without its text.
 */
class GuardedActionsIT {

    private static final DockyardApi API = new DockyardApi();
    /** HIGH (privilege escalation) yet harmless here: the sandbox has no sudo. */
    private static final String HIGH = "sudo -n true; echo after-sudo-$((40 + 2))";

    private static String provision(String agent) {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder().add("conversationId",
                "it-guarded-" + UUID.randomUUID()).add("agent", agent).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        return answer.json().getString("id");
    }

    private static JsonObject action(String command, String confirmation) {
        var args = Json.createObjectBuilder().add("command", command);
        var action = Json.createObjectBuilder().add("action", "run").add("args", args);
        if (confirmation != null) {
            action.add("confirmation_state", confirmation);
        }
        return action.build();
    }

    @Test
    void shouldAskForConfirmationOfHighRiskActionsAndRunThemOnceConfirmed() {
        String id = provision("CodeActAgent");
        try {
            DockyardApi.Answer held = API.post("runtimes/" + id + "/actions", action(HIGH, null));
            assertEquals(409, held.status(), held.body());
            assertTrue(held.json().getString("type").endsWith("/confirmation-required"), held.body());
            assertEquals("HIGH", held.json().getString("risk"));
            assertEquals(2, held.json().getInt("securityRisk"));
            assertEquals("privilege escalation", held.json().getJsonArray("reasons").getString(0));

            DockyardApi.Answer confirmed = API.post("runtimes/" + id + "/actions", action(HIGH, "confirmed"));
            assertEquals(200, confirmed.status(), confirmed.body());
            assertTrue(confirmed.json().getString("content").contains("after-sudo-42"), confirmed.body());

            // MEDIUM runs at once under the default policy
            assertEquals(200, API.post("runtimes/" + id + "/actions", action("rm -rf /tmp/it-scratch", null)).status());
            // the agent's own rating counts when it is the higher one
            DockyardApi.Answer declared = API.post("runtimes/" + id + "/actions", Json.createObjectBuilder()
                    .add("action", "run").add("args", Json.createObjectBuilder().add("command", "ls")
                            .add("security_risk", 2)).build());
            assertEquals(409, declared.status(), declared.body());

            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    API.get("runtimes/" + id + "/audit").json().getJsonArray("entries").size() >= 4);
            List<JsonObject> entries = API.get("runtimes/" + id + "/audit").json().getJsonArray("entries")
                    .getValuesAs(JsonObject.class);
            assertEquals(List.of("AWAITING_CONFIRMATION", "ALLOWED", "CONFIRMED", "AWAITING_CONFIRMATION"),
                    entries.stream().map(e -> e.getString("decision")).toList());
            JsonObject ran = entries.get(2);
            assertEquals("run", ran.getString("action"));
            assertEquals("HIGH", ran.getString("risk"));
            assertEquals(0, ran.getInt("exitCode"));
            assertTrue(ran.getInt("bytesOut") > 0 && ran.getInt("durationMs") >= 0, ran.toString());
            assertFalse(API.get("runtimes/" + id + "/audit").body().contains("sudo"), "no action text in the audit");
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldBlockHighAndHoldMediumUnderAStrictPolicy() {
        String id = provision("GuardedAgent");
        try {
            DockyardApi.Answer blocked = API.post("runtimes/" + id + "/actions", action(HIGH, "confirmed"));
            assertEquals(403, blocked.status(), blocked.body());
            assertTrue(blocked.json().getString("type").endsWith("/action-blocked"), blocked.body());
            DockyardApi.Answer held = API.post("runtimes/" + id + "/actions", action("git reset --hard", null));
            assertEquals(409, held.status(), held.body());
            assertEquals("MEDIUM", held.json().getString("risk"));
            assertEquals("ok", API.act(id, DockyardApi.run("echo ok")).getString("content").strip());

            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    API.get("runtimes/" + id + "/audit").json().getJsonArray("entries").size() >= 3);
            // the admin-wide trail has them too, and another user sees none of it
            String since = Instant.now().minusSeconds(600).toString();
            JsonObject all = API.get("audit?since=" + since + "&limit=1000").json();
            assertTrue(all.getJsonArray("entries").stream().map(JsonObject.class::cast)
                    .anyMatch(e -> e.getString("runtimeId").equals(id) && e.getString("decision").equals("BLOCKED")),
                    all.toString());
            String stranger = API.post("users", Json.createObjectBuilder()
                    .add("userId", "audit-stranger-" + UUID.randomUUID().toString().substring(0, 8)).build())
                    .json().getString("apiKey");
            assertEquals(404, API.withKey(stranger).get("runtimes/" + id + "/audit").status());
            assertEquals(403, API.withKey(stranger).get("audit").status());
            assertEquals(400, API.get("audit?since=yesterday").status());
        } finally {
            API.delete("runtimes/" + id);
        }
    }
}
