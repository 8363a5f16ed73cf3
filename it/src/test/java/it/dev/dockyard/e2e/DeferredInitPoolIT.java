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
import java.util.UUID;
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
 *
 * <p>Issue 31 items 2 to 4: the stand-in keeps two rules of the real server (it listens beyond its
 * loopback only with a session key at boot; an init that offers h2c loses its body), and OpenHands'
 * SDK's own start, with its user, group and runtime class, is served from a pool declared for them.
 */
class DeferredInitPoolIT {

    private static final DockyardApi ADMIN = new DockyardApi();
    private static final String POOL = "it-dormant";
    /** A pool of members as OpenHands' SDK asks for them: its command string, user 10001, fs_group 10001. */
    private static final String SDK_POOL = "it-dormant-sdk";
    private static final String SDK_COMMAND = "python3 /srv/server.py";
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
        DockyardApi.Answer sdkPool = ADMIN.put("pools/" + SDK_POOL, Json.createObjectBuilder().add("image", image)
                .add("size", 1).add("maxBooting", 1).add("program", Json.createObjectBuilder()
                        .add("command", Json.createArrayBuilder().add("/bin/sh").add("-c").add(SDK_COMMAND))
                        .add("workingDir", "/").add("user", "10001").add("fsGroup", 10001)
                        .add("deferredInit", true)).build());
        assertEquals(201, sdkPool.status(), sdkPool.body());
        assertEquals(10001, sdkPool.json().getJsonObject("program").getInt("fsGroup"), sdkPool.body());
        awaitReady(2);
        awaitReady(SDK_POOL, 1);
    }

    @AfterAll
    static void removePool() {
        try {
            ADMIN.delete("pools/" + POOL);
            ADMIN.delete("pools/" + SDK_POOL);
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> DockerCli.containersLabelled("dev.dockyard.pool=" + POOL).isEmpty()
                            && DockerCli.containersLabelled("dev.dockyard.pool=" + SDK_POOL).isEmpty());
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
            // booted with one key, so that it listens where Dockyard reaches it; the init kept that key
            // and no other: the sandbox key, for which the proxy exchanges the key clients hold
            assertEquals(1, seen.getInt("bootKeys"), "the member booted with its own key as session key");
            assertEquals(1, seen.getInt("inits"), "initialised once, over HTTP/1.1 (an h2c offer loses the body)");
            assertEquals(1, seen.getInt("keys"), "with one key");
            assertTrue(seen.getBoolean("bootKeyKept"), "the key it booted with, not a second one");
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
    void shouldServeTheStartOfOpenHandsSdkFromAPoolDeclaredForItsUserAndGroup() {
        // openhands-workspace/openhands/workspace/remote_api/workspace.py, APIRemoteWorkspace._start_runtime:
        // its payload as sent (the command a string, run_as_user and fs_group 10001, sysbox-runc, a pull policy)
        Set<String> members = poolMembers(SDK_POOL);
        long hits = ADMIN.get("pools/" + SDK_POOL).json().getJsonNumber("hits").longValue();
        String session = "agent-server-" + UUID.randomUUID();
        long started = System.nanoTime();
        JsonObject runtime = user.runtimes().started(Json.createObjectBuilder()
                .add("image", image)
                .add("command", SDK_COMMAND)
                .add("working_dir", "/")
                .add("environment", Json.createObjectBuilder())
                .add("session_id", session)
                .add("run_as_user", 10001)
                .add("fs_group", 10001)
                .add("image_pull_policy", "IfNotPresent")
                .add("runtime_class", "sysbox-runc")
                .build());
        long ms = (System.nanoTime() - started) / 1_000_000;
        String id = runtime.getString("runtime_id");
        try {
            System.out.println("deferred-init pool, the SDK's start: answered in " + ms + " ms");
            assertTrue(members.contains(id), "served by a warm member: " + id + " not in " + members);
            assertEquals(hits + 1, ADMIN.get("pools/" + SDK_POOL).json().getJsonNumber("hits").longValue());
            // _wait_until_runtime_alive_once: pod_status ready, then GET {url}/health without a key
            JsonObject polled = user.runtimes().sessionObject(session);
            assertEquals("ready", polled.getString("pod_status"), polled.toString());
            assertEquals(200, ThroughUrl.get(runtime.getString("url") + "/alive", null).statusCode());
            HttpResponse<String> whoami = ThroughUrl.get(runtime.getString("url") + "/api/whoami",
                    runtime.getString("session_api_key"));
            assertEquals(200, whoami.statusCode(), whoami.body());
            System.out.println("deferred-init pool, the SDK's start: its first authenticated call answered "
                    + (System.nanoTime() - started) / 1_000_000 + " ms after the /start was sent");
            JsonObject seen = DockyardApi.parse(whoami.body());
            assertEquals(10001, seen.getInt("uid"), seen.toString());
            assertTrue(seen.getJsonArray("groups").toString().contains("10001"), "fs_group: " + seen);
            assertEquals(1, seen.getInt("inits"));
        } finally {
            RuntimeApi.cleanUp(user, id);
        }
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
        awaitReady(POOL, size);
    }

    private static void awaitReady(String name, int size) {
        Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
            JsonObject pool = ADMIN.get("pools/" + name).json();
            return pool.getInt("ready") == size && poolMembers(name).size() == size;
        });
    }

    /** The runtime ids of running containers of the pool whose runtime does not exist: its members. */
    private static Set<String> poolMembers() {
        return poolMembers(POOL);
    }

    private static Set<String> poolMembers(String name) {
        return DockerCli.ok("ps", "--filter", "label=dev.dockyard.pool=" + name, "--filter",
                        "label=dev.dockyard.control-plane=" + System.getProperty("dockyard.instance", "it"), "--format",
                        "{{.Label \"dev.dockyard.runtime-id\"}}").lines().filter(l -> !l.isBlank())
                .filter(id -> ADMIN.get("runtimes/" + id).status() == 404).collect(Collectors.toSet());
    }
}
