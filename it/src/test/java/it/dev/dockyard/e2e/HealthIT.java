package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.Forwarder;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * MicroProfile Health on the running control plane: {@code /health/ready} checks the database and
 * each backend node, {@code /health/live} the reconciler. node2's engine is reached through a TCP
 * forwarder this test stops and starts again: the readiness goes DOWN naming {@code node-node2}
 * within 15 s, and UP again within 15 s of the engine's return. On the disposable control plane,
 * whose node2 is that forwarder, so that the shared one's node2 stays up for the suites beside it.
 */
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class HealthIT {

    private static final Duration WITHIN = Duration.ofSeconds(15);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private record Health(int status, JsonObject body) {
        Optional<JsonObject> check(String name) {
            return body.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                    .filter(c -> c.getString("name").equals(name)).findFirst();
        }

        String statusOf(String name) {
            return check(name).orElseThrow(() -> new AssertionError("no check " + name + " in " + body))
                    .getString("status");
        }
    }

    private static Health health(String which) throws Exception {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(
                URI.create(DisposableControlPlane.server().url() + "/health/" + which))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return new Health(answer.statusCode(), DockyardApi.parse(answer.body()));
    }

    /** Polls /health/ready until {@code node-node2} is {@code status}; how long it took. */
    private static Duration untilNode2(String status) throws Exception {
        long start = System.nanoTime();
        long deadline = start + WITHIN.toNanos();
        Health last = null;
        while (System.nanoTime() < deadline) {
            last = health("ready");
            if (last.check("node-node2").map(c -> c.getString("status").equals(status)).orElse(false)) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("node-node2 not " + status + " within " + WITHIN + ": " + last);
    }

    @Test
    void shouldTurnReadyDownNamingTheNodeWhoseEngineStoppedAndUpWhenItIsBack() throws Exception {
        Forwarder forwarder = DisposableControlPlane.node2();
        int port = forwarder.port();
        boolean cut = false;
        try {
            untilNode2("UP");
            Health ready = health("ready");
            assertEquals(200, ready.status(), ready.body().toString());
            assertEquals("UP", ready.statusOf("database"));
            assertEquals("UP", ready.statusOf("node-local"));
            assertEquals("UP", ready.statusOf("node-node2"));

            forwarder.close();
            cut = true;
            Duration down = untilNode2("DOWN");
            Health sick = health("ready");
            assertEquals(503, sick.status(), sick.body().toString());
            assertEquals("DOWN", sick.body().getString("status"));
            JsonObject node2 = sick.check("node-node2").orElseThrow();
            assertEquals("node2", node2.getJsonObject("data").getString("node"));
            assertTrue(!node2.getJsonObject("data").getString("error").isBlank(), node2.toString());
            assertEquals("UP", sick.statusOf("node-local"));
            assertEquals("UP", sick.statusOf("database"));

            forwarder = forwarder.reopen(port);
            DisposableControlPlane.node2(forwarder);
            cut = false;
            Duration up = untilNode2("UP");
            assertEquals(200, health("ready").status());
            System.out.println("health: /health/ready DOWN naming node-node2 " + down.toMillis()
                    + " ms after its engine became unreachable, UP again " + up.toMillis() + " ms after it came back");
        } finally {
            if (cut) {
                // failed while cut off: the engine back for the suites after this one
                DisposableControlPlane.node2(forwarder.reopen(port));
            }
        }
    }

    @Test
    void shouldBeReadyOnlyOnceTheStartsWarmUpIsDone() throws Exception {
        // the disposable control plane was awaited ready: its warm-up (nodes readied, the API's first
        // requests answered) had run by then, and says how long it took
        Health ready = health("ready");
        JsonObject warmUp = ready.check("warm-up").orElseThrow(() -> new AssertionError(ready.body().toString()));
        assertEquals("UP", warmUp.getString("status"), warmUp.toString());
        assertTrue(warmUp.getJsonObject("data").getJsonNumber("tookMs").longValue() >= 0, warmUp.toString());
        // its three requests (a listing, a provision, a look-up: StartupWarmUp.ApiRequests.CALLS) reached this
        // server's API over loopback and were refused their unknown key
        assertEquals(3, warmUp.getJsonObject("data").getJsonNumber("apiRequestsAnswered").intValue(), warmUp.toString());
    }

    @Test
    void shouldReportTheReconcilersLastPassOnItsLeaseHolder() throws Exception {
        Health live = health("live");
        assertEquals(200, live.status(), live.body().toString());
        JsonObject reconciler = live.check("reconciler").orElseThrow(() -> new AssertionError(live.body().toString()));
        assertEquals("UP", reconciler.getString("status"));
        JsonObject data = reconciler.getJsonObject("data");
        String me = live.check("instance").orElseThrow().getJsonObject("data").getString("id");
        assertEquals(me, data.getString("leaseHolder"), "this single control plane runs the reconciler");
        // the timer turns every ten seconds
        assertTrue(data.getJsonNumber("lastPassAgeSeconds").longValue() <= 30, data.toString());
        assertEquals(300, data.getJsonNumber("maxAgeSeconds").longValue());
    }
}
