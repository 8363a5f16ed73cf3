package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import it.dev.dockyard.support.ThroughUrl;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Dockyard's own sandbox image ({@code dockyard/sandbox:latest}, labelled {@code dev.dockyard.runtime-image=true})
 * started through {@code POST /runtime-api/start} with the legacy runtime's request: Dockyard runs its executor
 * (the command is ignored) and OpenHands' legacy action-execution protocol works through the runtime's {@code url}.
 *
 * <p>The request, from {@code openhands/runtime/impl/remote/remote_runtime.py} at OpenHands/OpenHands
 * {@code d6fab190bfb55f07cc380993b45ec4f781706a92}, {@code _start_runtime}:
 * <pre>{@code
 * environment.update(self.config.sandbox.runtime_startup_env_vars)
 * start_request: dict[str, Any] = {
 *     'image': self.container_image,
 *     'command': command,
 *     'working_dir': '/openhands/code/',
 *     'environment': environment,
 *     'session_id': self.sid,
 *     'resource_factor': self.config.sandbox.remote_runtime_resource_factor,
 * }
 * }</pre>
 * with {@code command} from {@code openhands/runtime/utils/command.py} (the example in the notes); then
 * {@code _wait_until_alive_impl}: {@code GET .../runtime/{self.runtime_id}} every 2 s ({@code wait_fixed(2)}) until
 * {@code pod_status == 'ready'} ({@code not found|pending|running} mean "not yet"), then {@code check_if_alive}:
 * {@code GET {url}/alive}. Actions go to {@code POST {url}/execute_action} with body {@code {"action": {...}}}
 * ({@code action_execution_client.py}, same commit), header {@code X-Session-API-Key} = {@code session_api_key}. The
 * action bodies are those of the executor protocol ITs ({@code it.dev.dockyard.executor}) and /work/shared/PROTOCOL.md.
 */
class DockyardImageThroughRuntimeApiIT {

    static final String IMAGE = "dockyard/sandbox:latest";
    /** The legacy runtime's action_execution_server command (notes, section 2a). */
    static final List<String> LEGACY_COMMAND = List.of("/openhands/micromamba/bin/micromamba", "run", "-n",
            "openhands", "poetry", "run", "python", "-u", "-m", "openhands.runtime.action_execution_server", "60000",
            "--working-dir", "/workspace", "--plugins", "agent_skills", "jupyter", "vscode", "--username", "openhands",
            "--user-id", "1000");
    static final String FILE = "/workspace/it-runtime-api.txt";

    /** The legacy runtime's /start body. */
    static JsonObject legacyStart(String sessionId, String envValue) {
        return Json.createObjectBuilder()
                .add("image", IMAGE)
                .add("command", Json.createArrayBuilder(LEGACY_COMMAND))
                .add("working_dir", "/openhands/code/")
                .add("environment", Json.createObjectBuilder().add("IT_STARTUP_ENV", envValue))
                .add("session_id", sessionId)
                .add("resource_factor", 1)
                .build();
    }

    /** L's readiness poll: GET /runtime/{id} (every second here) until pod_status is ready; that runtime object. */
    static JsonObject awaitReadyLikeTheLegacyRuntime(RuntimeApi api, String runtimeId) {
        long deadline = System.nanoTime() + RuntimeApi.LIMIT.toNanos();
        while (true) {
            DockyardApi.Answer answer = api.runtime(runtimeId);
            assertEquals(200, answer.status(), answer.body());
            JsonObject runtime = answer.json();
            assertEquals(runtimeId, runtime.getString("runtime_id"));
            String podStatus = runtime.getString("pod_status");
            if (podStatus.equals("ready")) {
                return runtime;
            }
            assertTrue(Set.of("not found", "pending", "running").contains(podStatus), "L gives up on " + runtime);
            assertTrue(System.nanoTime() < deadline, "not ready within " + RuntimeApi.LIMIT + ": " + runtime);
            RuntimeApi.sleep(Duration.ofSeconds(1));
        }
    }

    @Test
    void shouldSpeakTheLegacyActionProtocolThroughTheRuntimeUrl() {
        RuntimeApi.User user = RuntimeApi.newUser("rtapi-legacy");
        RuntimeApi api = user.runtimes();
        String session = UUID.randomUUID().toString().replace("-", "");
        String envValue = "startup-" + UUID.randomUUID();
        String runtimeId = null;
        try {
            JsonObject started = api.started(legacyStart(session, envValue));
            runtimeId = started.getString("runtime_id");
            assertEquals(IMAGE, started.getString("image"));
            assertEquals("starting", started.getString("status"), started.toString());

            JsonObject ready = awaitReadyLikeTheLegacyRuntime(api, runtimeId);
            assertEquals("running", ready.getString("status"), ready.toString());
            String url = started.getString("url");
            String key = started.getString("session_api_key");
            assertEquals(key, ready.getString("session_api_key"));

            // check_if_alive; then the executor says ok once initialised
            assertEquals(200, ThroughUrl.get(url + "/alive", key).statusCode());
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> ThroughUrl.get(url + "/alive", key).body().contains("\"ok\""));

            // the run action exactly as the brief gives it (OpenHands' CmdRunAction as event_to_dict makes it)
            JsonObject echo = execute(url, key, Json.createObjectBuilder().add("action", "run")
                    .add("args", Json.createObjectBuilder().add("command", "echo hi").add("is_input", false)
                            .add("thought", "").add("blocking", false).add("hidden", false)
                            .add("confirmation_state", "confirmed"))
                    .add("timeout", 30).build());
            assertEquals("run", echo.getString("observation"), echo.toString());
            assertEquals("hi", echo.getString("content").strip(), echo.toString());
            assertEquals(0, echo.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"));
            JsonObject env = execute(url, key, run("echo \"$RUNTIME_ID $IT_STARTUP_ENV\""));
            assertEquals(runtimeId + " " + envValue, env.getString("content").strip(), "environment and RUNTIME_ID");

            // write, read back, edit (str_replace), read again
            JsonObject written = execute(url, key, action("write", Json.createObjectBuilder().add("path", FILE)
                    .add("content", "alpha\nbeta")));
            assertEquals("write", written.getString("observation"), written.toString());
            assertEquals("alpha\nbeta\n", read(url, key), "read after write");
            JsonObject edited = execute(url, key, action("edit", Json.createObjectBuilder()
                    .add("command", "str_replace").add("path", FILE).add("old_str", "beta").add("new_str", "gamma")));
            assertEquals("edit", edited.getString("observation"), edited.toString());
            assertEquals("beta", edited.getJsonObject("extras").getString("old_content"), edited.toString());
            assertEquals("gamma", edited.getJsonObject("extras").getString("new_content"), edited.toString());
            assertEquals("alpha\ngamma\n", read(url, key), "read after edit");

            // without the key, or with a wrong one, the proxy refuses, and nothing happens in the sandbox
            JsonObject overwrite = Json.createObjectBuilder().add("action", action("write", Json.createObjectBuilder()
                    .add("path", FILE).add("content", "overwritten"))).build();
            for (String wrong : new String[] {null, user.apiKey(), "x" + key}) {
                HttpResponse<String> refused = ThroughUrl.post(url + "/execute_action", wrong, overwrite);
                assertEquals(401, refused.statusCode(), refused.body());
            }
            assertEquals("alpha\ngamma\n", read(url, key), "refused writes changed nothing");

            // the key is in no docker inspect output
            List<String> containers = DockerCli.containersLabelled("dev.dockyard.runtime-id=" + runtimeId);
            assertEquals(1, containers.size(), containers.toString());
            assertFalse(DockerCli.ok("inspect", containers.get(0)).contains(key), "the session key in docker inspect");
            String containerEnv = DockerCli.inspect(containers.get(0), "{{json .Config.Env}}");
            assertFalse(containerEnv.matches("(?s).*\"(SESSION_API_KEY|OH_SESSION_API_KEYS_0)=[^\"]+\".*"),
                    containerEnv);

            DockyardApi.Answer stopped = api.stop(runtimeId);
            assertEquals(200, stopped.status(), stopped.body());
            assertEquals("stopped", stopped.json().getString("status"), stopped.body());
        } finally {
            RuntimeApi.cleanUp(user, runtimeId);
        }
    }

    /**
     * The SDK's {@code APIRemoteWorkspace(runtime_class="gvisor")}: the sandbox runs on runsc, and a
     * command interrupted by C-c through the runtime's url ends there as on runc.
     */
    @Test
    void shouldRunOnGvisorWhenTheClientNamesItsRuntimeClass() {
        RuntimeApi.User user = RuntimeApi.newUser("rtapi-gvisor");
        RuntimeApi api = user.runtimes();
        String session = UUID.randomUUID().toString().replace("-", "");
        String runtimeId = null;
        try {
            JsonObject started = api.started(Json.createObjectBuilder(legacyStart(session, "on-gvisor"))
                    .add("runtime_class", "gvisor").build());
            runtimeId = started.getString("runtime_id");
            awaitReadyLikeTheLegacyRuntime(api, runtimeId);
            String url = started.getString("url");
            String key = started.getString("session_api_key");
            List<String> containers = DockerCli.containersLabelled("dev.dockyard.runtime-id=" + runtimeId);
            assertEquals(1, containers.size(), containers.toString());
            assertEquals("runsc", DockerCli.inspect(containers.get(0), "{{.HostConfig.Runtime}}"));
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> ThroughUrl.get(url + "/alive", key).body().contains("\"ok\""));

            JsonObject running = execute(url, key, Json.createObjectBuilder().add("action", "run")
                    .add("args", Json.createObjectBuilder().add("command", "sleep 600").add("blocking", true))
                    .add("timeout", 2).build());
            assertEquals(-1, running.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"),
                    running.toString());
            JsonObject interrupted = execute(url, key, action("run", Json.createObjectBuilder()
                    .add("command", "C-c").add("is_input", true)));
            assertEquals(130, interrupted.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"),
                    interrupted.toString());
            assertEquals("on-gvisor", execute(url, key, run("echo $IT_STARTUP_ENV")).getString("content").strip());
        } finally {
            RuntimeApi.cleanUp(user, runtimeId);
        }
    }

    /**
     * A runtime whose sandbox stopped while READY (an engine restart stops every container) answers
     * {@code 503} with {@code Retry-After} at its URL while Dockyard starts it again, not the {@code 502}
     * OpenHands' clients give up on ("temporarily unavailable"); on a 503 they resume the runtime,
     * poll it until its pod is ready, check {@code /alive} and send their request again. The resume
     * waits a little for the recovery, and the runtime is pending, not failed, meanwhile (the soak's
     * engine restart, 2026-11-30).
     */
    @Test
    void shouldAskToRetryAtItsUrlWhileItsStoppedSandboxIsStartedAgainAndResumeOnceItServes() {
        RuntimeApi.User user = RuntimeApi.newUser("rtapi-recovered");
        RuntimeApi api = user.runtimes();
        String session = UUID.randomUUID().toString().replace("-", "");
        String runtimeId = null;
        try {
            JsonObject started = api.started(legacyStart(session, "recovered"));
            runtimeId = started.getString("runtime_id");
            awaitReadyLikeTheLegacyRuntime(api, runtimeId);
            String url = started.getString("url");
            String key = started.getString("session_api_key");
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> ThroughUrl.get(url + "/alive", key).body().contains("\"ok\""));
            execute(url, key, action("write", Json.createObjectBuilder().add("path", FILE).add("content", "kept")));
            List<String> containers = DockerCli.containersLabelled("dev.dockyard.runtime-id=" + runtimeId);
            assertEquals(1, containers.size(), containers.toString());

            DockerCli.ok("stop", "-t", "1", containers.get(0));
            HttpResponse<String> refused = ThroughUrl.get(url + "/alive", key);
            assertEquals(503, refused.statusCode(), refused.body());
            assertEquals("2", refused.headers().firstValue("Retry-After").orElse(""), refused.body());

            // OpenHands' _resume_runtime (it gives the call 10 s), then _wait_until_alive: polls the
            // runtime until its pod is ready, then checks it is alive
            long asked = System.nanoTime();
            DockyardApi.Answer resumed = api.resume(runtimeId);
            assertEquals(200, resumed.status(), resumed.body());
            assertTrue(Duration.ofNanos(System.nanoTime() - asked).toSeconds() < 10, "within OpenHands' timeout");
            assertEquals("running", resumed.json().getString("status"), resumed.body());
            assertEquals(key, resumed.json().getString("session_api_key"), "the key stays");
            awaitReadyLikeTheLegacyRuntime(api, runtimeId);
            HttpResponse<String> alive = ThroughUrl.get(url + "/alive", key);
            assertEquals(200, alive.statusCode(), alive.body());
            assertEquals("kept\n", read(url, key), "the workspace as it was");
        } finally {
            RuntimeApi.cleanUp(user, runtimeId);
        }
    }

    private static JsonObject action(String type, JsonObjectBuilder args) {
        return Json.createObjectBuilder().add("action", type).add("args", args).build();
    }

    private static JsonObject run(String command) {
        return action("run", Json.createObjectBuilder().add("command", command));
    }

    private static String read(String url, String key) {
        JsonObject read = execute(url, key, action("read", Json.createObjectBuilder().add("path", FILE)
                .add("start", 0).add("end", -1)));
        assertEquals("read", read.getString("observation"), read.toString());
        return read.getString("content");
    }

    /** POST {url}/execute_action with {"action": action}; the observation (the answer must be 200). */
    private static JsonObject execute(String url, String key, JsonObject action) {
        HttpResponse<String> answer = ThroughUrl.post(url + "/execute_action", key,
                Json.createObjectBuilder().add("action", action).build());
        assertEquals(200, answer.statusCode(), answer.body());
        return DockyardApi.parse(answer.body());
    }
}
