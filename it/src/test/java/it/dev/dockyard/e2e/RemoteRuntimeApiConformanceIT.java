package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.ForeignImage;
import it.dev.dockyard.support.RuntimeApi;
import it.dev.dockyard.support.ThroughUrl;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dockyard's Remote Runtime API ({@code {dockyard.url}/runtime-api}) driven with exactly the requests OpenHands'
 * clients send (taken from /work/notes/openhands-runtime-api.md and checked against the sources):
 *
 * <p>App server ("A"), {@code openhands/app_server/sandbox/remote_sandbox_service.py} at OpenHands/OpenHands
 * {@code d6fab190bfb55f07cc380993b45ec4f781706a92}, {@code start_sandbox}:
 * <pre>{@code
 * start_request: dict[str, Any] = {
 *     'image': sandbox_spec.id,  # Use sandbox_spec.id as the container image
 *     'command': sandbox_spec.command,
 *     'working_dir': '/workspace',
 *     'environment': environment,
 *     'session_id': sandbox_id,  # Use sandbox_id as session_id
 *     'resource_factor': self.resource_factor,
 *     'run_as_user': 10001,
 *     'run_as_group': 10001,
 *     'fs_group': 10001,
 * }
 * }</pre>
 * with {@code command = ['/usr/local/bin/openhands-agent-server', '--port', '60000']}
 * ({@code remote_sandbox_spec_service.py}), {@code sandbox_id = base62.encodebytes(os.urandom(16))}, no
 * {@code runtime_class} for the default 'gvisor', and {@code environment} = the spec's {@code initial_env}
 * (OPENVSCODE_SERVER_ROOT, LOG_JSON, OH_ENABLE_VNC, OH_CONVERSATIONS_PATH, OH_BASH_EVENTS_DIR, OH_VSCODE_PORT=60001)
 * plus {@code OH_AGENT_SERVER_ENV}'s keys plus {@code WORKER_1='12000'}, {@code WORKER_2='12001'} (A-new). Pause,
 * resume and stop, same file: {@code json={'runtime_id': runtime_data['runtime_id']}} to {@code '/pause'},
 * {@code '/resume'}, {@code '/stop'}; the poller reads {@code response.json()['runtimes']} of
 * {@code f'{api_url}/list'}.
 * A-new (same path, commit {@code 029f823357abdadb4075089c1b5572f1ce56f392}, from the file index),
 * {@code _get_runtimes_batch}:
 * <pre>{@code
 * params = [('ids', sandbox_id) for sandbox_id in sandbox_ids]
 *
 * response = await self._send_runtime_api_request(
 *     'GET',
 *     '/sessions/batch',
 *     params=params,
 * )
 * }</pre>
 * and {@code resume_sandbox}, after {@code POST '/resume'}:
 * <pre>{@code
 * # Security: Update stored session_api_key with the new key returned
 * # by the runtime-api. The old key was invalidated on resume.
 * response_data = response.json()
 * new_session_api_key = response_data.get('session_api_key')
 * }</pre>
 *
 * <p>SDK, {@code openhands-workspace/openhands/workspace/remote_api/workspace.py} ({@code APIRemoteWorkspace}) at
 * OpenHands/software-agent-sdk {@code 611629e6999ad398dc49c761721eefe18d5e6bd9}, {@code _start_runtime}:
 * <pre>{@code
 * payload: dict[str, Any] = {
 *     "image": self.server_image,
 *     "command": f"{executable} --port 60000",
 *     "working_dir": "/",  # Match Dockerfile WORKDIR
 *     "environment": environment,
 *     "session_id": self.session_id,
 *     "run_as_user": 10001,
 *     "fs_group": 10001,
 *     "image_pull_policy": self.image_pull_policy,
 * }
 * if self.runtime_class:
 *     payload["runtime_class"] = self.runtime_class
 * }</pre>
 * with the defaults {@code session_id = f"agent-server-{uuid.uuid4()}"}, {@code image_pull_policy="IfNotPresent"},
 * {@code runtime_class="sysbox-runc"}; readiness: {@code GET /sessions/{session_id}} until {@code pod_status ==
 * "ready"}, then {@code urlopen(f"{self._runtime_url}/health", timeout=5.0)} with no key.
 *
 * <p>Legacy runtime ("L"), {@code openhands/runtime/impl/remote/remote_runtime.py} at OpenHands/OpenHands
 * {@code d6fab190bfb55f07cc380993b45ec4f781706a92}: {@code _build_runtime} sends {@code GET
 * f'{remote_runtime_api_url}/registry_prefix'} and {@code GET .../image_exists} with {@code params={'image':
 * self.container_image}} and reads {@code response.json()['exists']}; {@code _wait_until_alive_impl} sends
 * {@code GET .../runtime/{self.runtime_id}} every 2 s and asserts {@code runtime_data['runtime_id'] ==
 * self.runtime_id} and {@code 'pod_status' in runtime_data}. (Its /start body is sent in
 * {@link DockyardImageThroughRuntimeApiIT}.)
 *
 * <p>The image is this test's own foreign image ({@link ForeignImage}) in place of the agent server's, its command
 * in place of {@code openhands-agent-server}: what matters here is the API, not the server in the sandbox.
 */
class RemoteRuntimeApiConformanceIT {

    private static String image;

    @BeforeAll
    static void buildImage() {
        image = ForeignImage.build();
    }

    @AfterAll
    static void removeImage() {
        ForeignImage.remove(image);
    }

    /** The app server's /start body (A), with this test's image and command. */
    static JsonObject appServerStart(String image, String sessionId) {
        return Json.createObjectBuilder()
                .add("image", image)
                .add("command", Json.createArrayBuilder(ForeignImage.COMMAND))
                .add("working_dir", "/workspace")
                .add("environment", Json.createObjectBuilder()
                        .add("OPENVSCODE_SERVER_ROOT", "/openhands/.openvscode-server")
                        .add("LOG_JSON", "true")
                        .add("OH_ENABLE_VNC", "0")
                        .add("OH_CONVERSATIONS_PATH", "/workspace/conversations")
                        .add("OH_BASH_EVENTS_DIR", "/workspace/bash_events")
                        .add("OH_VSCODE_PORT", "60001")
                        // what OH_AGENT_SERVER_ENV may add: arbitrary keys
                        .add("IT_AGENT_SERVER_ENV", "from OH_AGENT_SERVER_ENV")
                        .add("WORKER_1", "12000")
                        .add("WORKER_2", "12001"))
                .add("session_id", sessionId)
                .add("resource_factor", 1)
                .add("run_as_user", 10001)
                .add("run_as_group", 10001)
                .add("fs_group", 10001)
                .build();
    }

    /**
     * The SDK's /start body with its defaults: {@code command} a string (here one only a shell runs as meant), no
     * run_as_group, image_pull_policy, runtime_class "sysbox-runc" (the last two accepted and ignored).
     */
    static JsonObject sdkStart(String image, String sessionId) {
        return Json.createObjectBuilder()
                .add("image", image)
                .add("command", "export IT_VIA_SHELL=yes; exec python3 /srv/server.py --port 60000")
                .add("working_dir", "/")
                .add("environment", Json.createObjectBuilder().add("IT_FORWARDED", "forward_env"))
                .add("session_id", sessionId)
                .add("run_as_user", 10001)
                .add("fs_group", 10001)
                .add("image_pull_policy", "IfNotPresent")
                .add("runtime_class", "sysbox-runc")
                .build();
    }

    @Test
    void shouldDriveTheLifecycleAsTheAppServerAndTheSdkDo() {
        RuntimeApi.User user = RuntimeApi.newUser("rtapi-conf");
        RuntimeApi api = user.runtimes();
        String appSession = RuntimeApi.appServerSessionId();
        String sdkSession = "agent-server-" + UUID.randomUUID();
        String appId = null;
        String sdkId = null;
        try {
            // A-new lists before every start (pause_old_sandboxes): /list must answer, empty for a new user
            assertEquals(List.of(), api.listed());

            // a member no OpenHands client sends is refused by name, as everywhere in the API (docs/user-guide.md "Strict input")
            DockyardApi.Answer unknown = api.start(Json.createObjectBuilder(sdkStart(image, sdkSession))
                    .add("it_unknown_field", true).build());
            assertEquals(400, unknown.status(), unknown.body());
            assertTrue(unknown.body().contains("it_unknown_field"), unknown.body());

            // /start answers at once, before the sandbox is ready (A's httpx timeout is 15 s)
            long before = System.nanoTime();
            JsonObject app = api.started(appServerStart(image, appSession));
            appId = app.getString("runtime_id");
            JsonObject sdk = api.started(sdkStart(image, sdkSession));
            sdkId = sdk.getString("runtime_id");
            Duration took = Duration.ofNanos(System.nanoTime() - before);
            assertTrue(took.compareTo(Duration.ofSeconds(15)) < 0, "two /start calls took " + took);
            for (JsonObject started : List.of(app, sdk)) {
                assertEquals("starting", started.getString("status"), started.toString());
                assertTrue(Set.of("pending", "running").contains(started.getString("pod_status")), started.toString());
                assertEquals(image, started.getString("image"), started.toString());
            }
            assertEquals(appSession, app.getString("session_id"));
            assertEquals(sdkSession, sdk.getString("session_id"));
            assertNotEquals(appId, sdkId);
            assertNotEquals(app.getString("session_api_key"), sdk.getString("session_api_key"));

            // L and the SDK /start again with the same session_id: a live session gets the same runtime
            JsonObject again = api.started(appServerStart(image, appSession));
            assertEquals(appId, again.getString("runtime_id"), again.toString());
            assertEquals(2, api.listed().size(), "no second runtime for a session started twice");

            // poll like the clients, every second: starting/pending (or running) -> running/ready
            List<String> seen = new ArrayList<>();
            JsonObject running = api.awaitSession(appSession, "running", "ready", Duration.ofSeconds(1), seen);
            assertTrue(Set.of("starting/pending", "starting/running", "running/ready").containsAll(seen),
                    "statuses while starting: " + seen);
            JsonObject sdkRunning = api.awaitSession(sdkSession, "running", "ready", Duration.ofSeconds(1), null);
            String appUrl = running.getString("url");
            String appKey = running.getString("session_api_key");
            assertEquals(app.getString("session_api_key"), appKey, "the key /start gave is the key to use");
            assertEquals(appId, running.getString("runtime_id"));

            // running means reachable end to end: the SDK's and A's probes carry no key
            assertEquals(200, ThroughUrl.get(appUrl + "/health", null).statusCode());
            assertEquals(200, ThroughUrl.get(appUrl + "/alive", null).statusCode());
            assertEquals(401, ThroughUrl.get(appUrl + "/whoami", null).statusCode(), "keyed paths need the key");
            JsonObject appWho = whoami(appUrl, appKey);
            assertEquals(10001, appWho.getInt("uid"));
            assertEquals(10001, appWho.getInt("gid"));
            assertEquals("/workspace", appWho.getString("cwd"));
            assertEquals("from OH_AGENT_SERVER_ENV", appWho.getJsonObject("env").getString("IT_AGENT_SERVER_ENV"));
            assertFalse(appWho.getJsonObject("env").containsKey("IT_VIA_SHELL"), "a list is exec'd, not run by sh");
            JsonObject sdkWho = whoami(sdkRunning.getString("url"), sdkRunning.getString("session_api_key"));
            assertEquals("yes", sdkWho.getJsonObject("env").getString("IT_VIA_SHELL", ""),
                    "a string command runs through /bin/sh -c: " + sdkWho);
            assertEquals("forward_env", sdkWho.getJsonObject("env").getString("IT_FORWARDED", ""));
            assertEquals(10001, sdkWho.getInt("uid"));
            assertEquals("/", sdkWho.getString("cwd"));

            // /list: {"runtimes": [...], "total": n} with the caller's live runtimes
            List<JsonObject> listed = api.listed();
            assertEquals(Set.of(appSession, sdkSession), field(listed, "session_id"), listed.toString());
            assertEquals(Set.of(appId, sdkId), field(listed, "runtime_id"), listed.toString());

            // /sessions/batch?ids=a&ids=b: a bare array, unknown ids left out
            DockyardApi.Answer batchAnswer = api.batch(appSession, "unknown-" + UUID.randomUUID(), sdkSession);
            assertEquals(200, batchAnswer.status(), batchAnswer.body());
            JsonArray batch = RuntimeApi.array(batchAnswer.body());
            List<JsonObject> batched = batch.getValuesAs(JsonObject.class);
            batched.forEach(RuntimeApi::assertRuntimeObject);
            assertEquals(2, batched.size(), batchAnswer.body());
            assertEquals(Set.of(appSession, sdkSession), field(batched, "session_id"));

            // /runtime/{id}: L's readiness poll
            DockyardApi.Answer byId = api.runtime(appId);
            assertEquals(200, byId.status(), byId.body());
            RuntimeApi.assertRuntimeObject(byId.json());
            assertEquals(appId, byId.json().getString("runtime_id"));
            assertEquals("ready", byId.json().getString("pod_status"));

            // the same runtime in Dockyard's own API
            DockyardApi.Answer own = user.dockyard().get("runtimes/" + appId);
            assertEquals(200, own.status(), own.body());
            assertEquals("READY", own.json().getString("status"), own.body());

            // pause: status paused / "not found"; the key stays; through url: 503 (L resumes on 503)
            DockyardApi.Answer paused = api.pause(appId);
            assertEquals(200, paused.status(), paused.body());
            RuntimeApi.assertRuntimeObject(paused.json());
            assertEquals("paused", paused.json().getString("status"), paused.body());
            assertEquals("not found", paused.json().getString("pod_status"), paused.body());
            assertEquals(appKey, paused.json().getString("session_api_key"), "pause keeps the key");
            assertEquals(503, ThroughUrl.get(appUrl + "/whoami", appKey).statusCode(), "a paused sandbox");
            JsonObject pausedSession = api.sessionObject(appSession);
            assertEquals("paused", pausedSession.getString("status"));
            assertEquals("not found", pausedSession.getString("pod_status"));
            assertEquals(200, ThroughUrl.get(sdkRunning.getString("url") + "/whoami",
                    sdkRunning.getString("session_api_key")).statusCode(), "the other runtime is untouched");

            // attach to a paused runtime as the SDK does (APIRemoteWorkspace._check_existing_runtime): the
            // key from GET /sessions while paused, then POST /resume (its answer not read), then
            // _wait_until_runtime_alive polls /sessions for pod_status ready and uses the key it read
            String keyWhilePaused = pausedSession.getString("session_api_key");
            DockyardApi.Answer resumed = api.resume(appId);
            assertEquals(200, resumed.status(), resumed.body());
            RuntimeApi.assertRuntimeObject(resumed.json());
            assertEquals(appId, resumed.json().getString("runtime_id"));
            String newKey = resumed.json().getString("session_api_key");
            assertEquals(keyWhilePaused, newKey, "the key is kept (dockyard.runtime-api.new-key-on-resume=false)");
            JsonObject back = api.awaitSession(appSession, "running", "ready", Duration.ofSeconds(1), null);
            assertEquals(newKey, back.getString("session_api_key"), "/sessions reports the same key (A-new reads it)");
            JsonObject whoAfter = whoami(appUrl, keyWhilePaused);
            assertEquals(whoAfter.getString("env_key"), whoAfter.getString("key"), "the sandbox got its own key");

            // stop: status stopped; /list no longer has them
            for (String id : List.of(appId, sdkId)) {
                DockyardApi.Answer stopped = api.stop(id);
                assertEquals(200, stopped.status(), stopped.body());
                RuntimeApi.assertRuntimeObject(stopped.json());
                assertEquals(id, stopped.json().getString("runtime_id"));
                assertEquals("stopped", stopped.json().getString("status"), stopped.body());
                assertEquals("not found", stopped.json().getString("pod_status"), stopped.body());
            }
            assertEquals(List.of(), api.listed(), "/list holds live runtimes only");
            DockyardApi.Answer afterStop = api.session(appSession);
            assertTrue(afterStop.status() == 404 || (afterStop.status() == 200
                    && afterStop.json().getString("status").equals("stopped")),
                    "after /stop, /sessions says 404 or stopped: " + afterStop.status() + " " + afterStop.body());
            int through = ThroughUrl.get(appUrl + "/whoami", newKey).statusCode();
            assertTrue(through >= 400, "a stopped sandbox is not served: " + through);
        } finally {
            RuntimeApi.cleanUp(user, appId);
            RuntimeApi.cleanUp(user, sdkId);
        }
    }

    @Test
    void shouldRefuseCallsWithoutAKeyOrWithAWrongOne() {
        String session = RuntimeApi.appServerSessionId();
        List<Function<RuntimeApi, DockyardApi.Answer>> calls = List.of(
                api -> api.start(appServerStart(image, session)),
                api -> api.session(session),
                api -> api.batch(session, session),
                api -> api.list(),
                api -> api.runtime("rt-0000000000000000"),
                api -> api.pause("rt-0000000000000000"),
                api -> api.resume("rt-0000000000000000"),
                api -> api.stop("rt-0000000000000000"),
                api -> api.get("/registry_prefix"),
                api -> api.get("/image_exists?image=" + RuntimeApi.encode(image)));
        for (RuntimeApi api : List.of(new RuntimeApi(null), new RuntimeApi("dy_not-a-key-" + UUID.randomUUID()))) {
            for (Function<RuntimeApi, DockyardApi.Answer> call : calls) {
                DockyardApi.Answer refused = call.apply(api);
                assertEquals(401, refused.status(), refused.body());
                RuntimeApi.detail(refused);
            }
        }
    }

    @Test
    void shouldAnswer404ForUnknownIds() {
        RuntimeApi api = RuntimeApi.newUser("rtapi-404").runtimes();
        String unknownRuntime = "rt-0000000000000000";
        String unknownSession = "unknown-" + UUID.randomUUID();
        for (DockyardApi.Answer missing : List.of(api.runtime(unknownRuntime), api.session(unknownSession),
                api.pause(unknownRuntime), api.resume(unknownRuntime), api.stop(unknownRuntime))) {
            assertEquals(404, missing.status(), missing.body());
            RuntimeApi.detail(missing);
        }
        DockyardApi.Answer none = api.batch(unknownSession, "unknown-" + UUID.randomUUID());
        assertEquals(200, none.status(), none.body());
        assertEquals(0, RuntimeApi.array(none.body()).size(), none.body());
        assertEquals(List.of(), api.listed());
        // an unknown runtime through the proxy
        assertEquals(404, ThroughUrl.get(RuntimeApi.SERVICES_URL + "/" + unknownRuntime + "/alive",
                "not-a-session-key").statusCode());
    }

    @Test
    void shouldRefuseBadInputWith400() {
        RuntimeApi api = RuntimeApi.newUser("rtapi-400").runtimes();
        String session = RuntimeApi.appServerSessionId();
        JsonObject good = appServerStart(image, session);
        List<DockyardApi.Answer> bad = List.of(
                api.post("/start", "{\"image\": \"" + image + "\", \"command\": ["),
                api.start(Json.createObjectBuilder(good).add("command", 42).build()),
                api.start(Json.createObjectBuilder(good).add("environment", Json.createArrayBuilder().add("A=1"))
                        .build()),
                api.post("/pause", Json.createObjectBuilder().build()),
                api.get("/image_exists"));
        for (DockyardApi.Answer answer : bad) {
            assertEquals(400, answer.status(), answer.body());
            RuntimeApi.detail(answer);
        }
        assertEquals(404, api.session(session).status(), "nothing was started");
        assertEquals(List.of(), api.listed());
    }

    @Test
    void shouldAnswerTheLegacyImageEndpoints() {
        RuntimeApi api = RuntimeApi.newUser("rtapi-images").runtimes();
        DockyardApi.Answer prefix = api.get("/registry_prefix");
        assertEquals(200, prefix.status(), prefix.body());
        assertFalse(prefix.json().getString("registry_prefix").isBlank(), prefix.body());

        for (String present : List.of("dockyard/sandbox:latest", image)) {
            DockyardApi.Answer exists = api.get("/image_exists?image=" + RuntimeApi.encode(present));
            assertEquals(200, exists.status(), exists.body());
            assertTrue(exists.json().getBoolean("exists"), exists.body());
            assertEquals(JsonValue.ValueType.OBJECT, exists.json().get("image").getValueType(), exists.body());
        }
        DockyardApi.Answer absent = api.get("/image_exists?image=" + RuntimeApi.encode("dockyard/it-never-built:"
                + UUID.randomUUID().toString().substring(0, 8)));
        assertEquals(200, absent.status(), absent.body());
        assertFalse(absent.json().getBoolean("exists"), absent.body());
    }

    private static JsonObject whoami(String url, String key) {
        HttpResponse<String> answer = ThroughUrl.get(url + "/whoami", key);
        assertEquals(200, answer.statusCode(), answer.body());
        return DockyardApi.parse(answer.body());
    }

    private static Set<String> field(List<JsonObject> runtimes, String name) {
        return runtimes.stream().map(r -> r.getString(name)).collect(Collectors.toSet());
    }
}
