package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.ForeignImage;
import it.dev.dockyard.support.RuntimeApi;
import it.dev.dockyard.support.ThroughUrl;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 10 item 5: a warm pool of another image whose server follows the deferred-init contract of
 * OpenHands' agent server (test resource {@code runtime-api/dormant/server.py}: 503 on /api until
 * {@code POST /api/init} with {@code X-Init-API-Key}). {@code /start} is answered from the pool with
 * a key that works, and the member was never given any other key.
 */
class DeferredInitPoolIT {

    private static final DockyardApi ADMIN = new DockyardApi();
    private static final String POOL = "it-dormant";
    private static String image;
    private static RuntimeApi.User user;

    @BeforeAll
    static void declarePool() {
        image = ForeignImage.build("dormant");
        user = RuntimeApi.newUser("rtapi-dormant");
        DockyardApi.Answer refused = ADMIN.put("pools/" + POOL, Json.createObjectBuilder().add("image", image)
                .add("size", 2).add("program", Json.createObjectBuilder()
                        .add("command", Json.createArrayBuilder(ForeignImage.COMMAND))).build());
        assertEquals(400, refused.status(), "a program pool needs a server that starts dormant: " + refused.body());
        DockyardApi.Answer created = ADMIN.put("pools/" + POOL, Json.createObjectBuilder().add("image", image)
                .add("size", 2).add("maxBooting", 2).add("program", Json.createObjectBuilder()
                        .add("command", Json.createArrayBuilder(ForeignImage.COMMAND))
                        .add("deferredInit", true)).build());
        assertEquals(201, created.status(), created.body());
        awaitReady(2);
    }

    @AfterAll
    static void removePool() {
        try {
            ADMIN.delete("pools/" + POOL);
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> DockerCli.containersLabelled("dev.dockyard.pool=" + POOL).isEmpty());
        } finally {
            ForeignImage.remove(image);
        }
    }

    @Test
    void shouldStartFromThePoolAndInitialiseTheMemberWithItsOwnKeyOnly() {
        Set<String> members = poolMembers();
        long hits = ADMIN.get("pools/" + POOL).json().getJsonNumber("hits").longValue();
        String session = RuntimeApi.appServerSessionId();
        long started = System.nanoTime();
        JsonObject runtime = user.runtimes().started(Json.createObjectBuilder()
                .add("image", image)
                .add("command", Json.createArrayBuilder(ForeignImage.COMMAND))
                .add("environment", Json.createObjectBuilder().add("IT_CANARY", "canary-" + session)
                        // what OpenHands' app server sends: configuration its agent server reads at boot
                        .add("OH_WEBHOOKS_0_BASE_URL", "http://127.0.0.1:9/webhooks")
                        .add("OH_ALLOW_CORS_ORIGINS_0", "http://127.0.0.1:3000"))
                .add("session_id", session)
                .add("resource_factor", 1)
                .build());
        long ms = (System.nanoTime() - started) / 1_000_000;
        String id = runtime.getString("runtime_id");
        try {
            System.out.println("deferred-init pool: /start answered running in " + ms + " ms");
            assertEquals("running", runtime.getString("status"), runtime.toString());
            assertTrue(members.contains(id), "served by a warm member: " + id + " not in " + members);
            assertEquals(hits + 1, ADMIN.get("pools/" + POOL).json().getJsonNumber("hits").longValue());

            String url = runtime.getString("url");
            String key = runtime.getString("session_api_key");
            HttpResponse<String> whoami = ThroughUrl.get(url + "/api/whoami", key);
            assertEquals(200, whoami.statusCode(), whoami.body());
            JsonObject seen = DockyardApi.parse(whoami.body());
            assertEquals(0, seen.getInt("bootKeys"), "the member booted with no session key at all");
            assertEquals(1, seen.getInt("inits"), "initialised once");
            assertEquals(1, seen.getInt("keys"), "with one key: the one this runtime's clients use");
            assertEquals("canary-" + session, seen.getString("canary"), "the /start environment came with the init");
            assertEquals(id, seen.getString("runtimeId"));
            assertEquals("http://127.0.0.1:9/webhooks", seen.getJsonArray("webhooks").getString(0),
                    "the webhook reached the dormant server's configuration, not just its environment");
            assertEquals("http://127.0.0.1:3000", seen.getJsonArray("cors").getString(0));
            assertTrue(ms < 3000, "answered from the pool, running, in " + ms + " ms");
            assertEquals(401, ThroughUrl.get(url + "/api/whoami", null).statusCode(), "no key, no entry");
            assertNotEquals(200, ThroughUrl.get(url + "/api/whoami", key + "x").statusCode());
            assertTrue(ThroughUrl.get(url + "/api/init", key).body().contains("ready"));
        } finally {
            RuntimeApi.cleanUp(user, id);
        }
        awaitReady(2);
        assertFalse(poolMembers().contains(id), "a claimed member is never returned to the pool");
    }

    @Test
    void shouldStartAnotherCommandColdAndNotFromThePool() {
        Set<String> members = poolMembers();
        String session = RuntimeApi.appServerSessionId();
        JsonObject runtime = user.runtimes().started(Json.createObjectBuilder()
                .add("image", image)
                .add("command", Json.createArrayBuilder(ForeignImage.COMMAND).add("--other"))
                .add("environment", Json.createObjectBuilder())
                .add("session_id", session)
                .add("resource_factor", 1)
                .build());
        String id = runtime.getString("runtime_id");
        try {
            assertFalse(members.contains(id), "a different command is not the pool's");
            JsonObject running = user.runtimes().awaitRunning(session);
            HttpResponse<String> whoami = ThroughUrl.get(running.getString("url") + "/api/whoami",
                    running.getString("session_api_key"));
            assertEquals(200, whoami.statusCode(), whoami.body());
            assertEquals(0, DockyardApi.parse(whoami.body()).getInt("inits"), "a cold server is not dormant");
        } finally {
            RuntimeApi.cleanUp(user, id);
        }
    }

    private static void awaitReady(int size) {
        Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
            JsonObject pool = ADMIN.get("pools/" + POOL).json();
            return pool.getInt("ready") == size && poolMembers().size() == size;
        });
    }

    /** The runtime ids of running containers of the pool whose runtime does not exist: its members. */
    private static Set<String> poolMembers() {
        return DockerCli.ok("ps", "--filter", "label=dev.dockyard.pool=" + POOL, "--filter",
                        "label=dev.dockyard.control-plane=" + System.getProperty("dockyard.instance", "it"), "--format",
                        "{{.Label \"dev.dockyard.runtime-id\"}}").lines().filter(l -> !l.isBlank())
                .filter(id -> ADMIN.get("runtimes/" + id).status() == 404).collect(Collectors.toSet());
    }
}
