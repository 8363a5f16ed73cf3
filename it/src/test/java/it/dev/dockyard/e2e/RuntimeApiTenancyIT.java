package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import it.dev.dockyard.support.ThroughUrl;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Tenancy through the Remote Runtime API: a user's runtimes do not exist for another user (404, exactly as for an
 * unknown id, on every endpoint; absent from /list and /sessions/batch), another user's keys do not open a runtime's
 * {@code url}, and the user's runtime quota (set as {@link TenancyIT} sets it) applies to {@code POST /start}. Runtime
 * bodies are the legacy runtime's ({@link DockyardImageThroughRuntimeApiIT#legacyStart}) on Dockyard's own image.
 */
class RuntimeApiTenancyIT {

    private static JsonObject start(String sessionId) {
        return DockyardImageThroughRuntimeApiIT.legacyStart(sessionId, "tenancy");
    }

    @Test
    void shouldHideOneUsersRuntimeFromAnother() {
        RuntimeApi.User alice = RuntimeApi.newUser("rtapi-alice");
        RuntimeApi.User bob = RuntimeApi.newUser("rtapi-bob");
        String aliceSession = RuntimeApi.appServerSessionId();
        List<String> bobsRuntimes = new ArrayList<>();
        String aliceId = null;
        try {
            aliceId = alice.runtimes().started(start(aliceSession)).getString("runtime_id");
            JsonObject aliceRuntime = alice.runtimes().awaitRunning(aliceSession);
            String aliceUrl = aliceRuntime.getString("url");
            String aliceKey = aliceRuntime.getString("session_api_key");

            RuntimeApi b = bob.runtimes();
            for (DockyardApi.Answer hidden : List.of(b.session(aliceSession), b.runtime(aliceId), b.pause(aliceId),
                    b.resume(aliceId), b.stop(aliceId))) {
                assertEquals(404, hidden.status(), hidden.body());
                RuntimeApi.detail(hidden);
                assertFalse(hidden.body().contains(aliceKey), "no key in a 404");
            }
            DockyardApi.Answer batch = b.batch(aliceSession);
            assertEquals(200, batch.status(), batch.body());
            assertEquals(0, RuntimeApi.array(batch.body()).size(), batch.body());
            assertEquals(List.of(), b.listed(), "bob lists none of alice's runtimes");

            // bob starting a session with alice's session id gets his own runtime (or a refusal), never hers
            DockyardApi.Answer sameSession = b.start(start(aliceSession));
            if (sameSession.status() == 200) {
                JsonObject bobs = sameSession.json();
                bobsRuntimes.add(bobs.getString("runtime_id"));
                assertNotEquals(aliceId, bobs.getString("runtime_id"), sameSession.body());
                assertNotEquals(aliceKey, bobs.getString("session_api_key"), sameSession.body());
            } else {
                assertTrue(sameSession.status() >= 400 && sameSession.status() < 500, sameSession.body());
                assertFalse(sameSession.body().contains(aliceKey), sameSession.body());
                JsonObject bobs = b.started(start(RuntimeApi.appServerSessionId()));
                bobsRuntimes.add(bobs.getString("runtime_id"));
            }
            String bobsRuntimeKey = b.runtime(bobsRuntimes.get(0)).json().getString("session_api_key");

            // alice's url: her key opens it; bob's runtime key and bob's API key do not
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> ThroughUrl.get(aliceUrl + "/alive", null).body().contains("\"ok\""));
            assertEquals(200, ThroughUrl.post(aliceUrl + "/execute_action", aliceKey, echo()).statusCode());
            for (String bobsKey : List.of(bobsRuntimeKey, bob.apiKey())) {
                HttpResponse<String> refused = ThroughUrl.post(aliceUrl + "/execute_action", bobsKey, echo());
                assertEquals(401, refused.statusCode(), refused.body());
            }

            // alice's runtime is untouched by all of bob's attempts
            JsonObject after = alice.runtimes().sessionObject(aliceSession);
            assertEquals("running", after.getString("status"), after.toString());
            assertEquals(aliceKey, after.getString("session_api_key"));
            assertEquals(Set.of(aliceId), Set.copyOf(alice.runtimes().listed().stream()
                    .map(r -> r.getString("runtime_id")).toList()));
        } finally {
            RuntimeApi.cleanUp(alice, aliceId);
            bobsRuntimes.forEach(id -> RuntimeApi.cleanUp(bob, id));
        }
    }

    @Test
    void shouldApplyTheUsersRuntimeQuotaToStart() {
        RuntimeApi.User carol = RuntimeApi.newUser("rtapi-quota");
        RuntimeApi.setMaxRuntimes(carol.userId(), 1);
        RuntimeApi api = carol.runtimes();
        String firstSession = RuntimeApi.appServerSessionId();
        String secondSession = RuntimeApi.appServerSessionId();
        List<String> started = new ArrayList<>();
        try {
            String first = api.started(start(firstSession)).getString("runtime_id");
            started.add(first);

            DockyardApi.Answer refused = api.start(start(secondSession));
            assertTrue(refused.status() == 429 || refused.status() == 403, refused.status() + ": " + refused.body());
            String detail = RuntimeApi.detail(refused).toLowerCase(Locale.ROOT);
            assertTrue(detail.contains("quota") || detail.contains("maxruntimes") || detail.contains("max-runtimes")
                    || detail.contains("max runtimes"), "a detail naming the quota: " + refused.body());
            assertEquals(404, api.session(secondSession).status(), "nothing was started for the refused session");
            assertEquals(List.of(first), api.listed().stream().map(r -> r.getString("runtime_id")).toList());

            // starting the live session again is no new runtime: the quota does not refuse it
            assertEquals(first, api.started(start(firstSession)).getString("runtime_id"));

            // once the first is stopped, the second is admitted (the quota counts live runtimes)
            DockyardApi.Answer stopped = api.stop(first);
            assertEquals(200, stopped.status(), stopped.body());
            DockyardApi.Answer admitted = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (admitted == null || (admitted.status() != 200 && System.nanoTime() < deadline)) {
                if (admitted != null) {
                    RuntimeApi.sleep(Duration.ofMillis(500));
                }
                admitted = api.start(start(secondSession));
            }
            assertEquals(200, admitted.status(), admitted.body());
            started.add(admitted.json().getString("runtime_id"));
        } finally {
            started.forEach(id -> RuntimeApi.cleanUp(carol, id));
        }
    }

    private static JsonObject echo() {
        return Json.createObjectBuilder().add("action", Json.createObjectBuilder().add("action", "run")
                .add("args", Json.createObjectBuilder().add("command", "echo tenancy"))).build();
    }
}
