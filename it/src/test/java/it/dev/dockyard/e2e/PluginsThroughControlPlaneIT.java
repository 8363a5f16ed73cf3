package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Plugins asked for at provisioning: READY only once they are up, ERROR naming the one that failed.
 * Its images are runtime images of the offline base, as ImageBuilderIT's: never built beside it.
 */
@ResourceLock(ImageBuilderIT.RUNTIME_IMAGES)
class PluginsThroughControlPlaneIT {

    private static final DockyardApi API = new DockyardApi();

    @AfterAll
    static void removeBuiltImages() {
        DockerCli.removeRepository("dockyard/it-runtime");
    }

    @Test
    void shouldServeIpythonCellsWithTheInjectedConfiguration() {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-plugins-" + UUID.randomUUID())
                .add("llm", Json.createObjectBuilder().add("model", "it-model-for-the-kernel"))
                .add("sandbox", Json.createObjectBuilder().add("plugins", Json.createArrayBuilder().add("jupyter")))
                .build(), 120);
        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().getString("id");
        try {
            assertEquals(List.of("jupyter"), answer.json().getJsonArray("plugins").getValuesAs(
                    JsonString::getString));
            JsonObject cell = API.act(id, Json.createObjectBuilder().add("action", "run_ipython").add("args",
                    Json.createObjectBuilder().add("code", "import os\nprint(os.environ.get('LLM_MODEL'), 6 * 7)"))
                    .build());
            assertEquals("run_ipython", cell.getString("observation"));
            assertTrue(cell.getString("content").startsWith("it-model-for-the-kernel 42"), cell.toString());
            // a kernel that dies comes back with the runtime's configuration
            API.act(id, Json.createObjectBuilder().add("action", "run_ipython").add("args",
                    Json.createObjectBuilder().add("code", "import os; os._exit(1)")).build());
            JsonObject again = API.act(id, Json.createObjectBuilder().add("action", "run_ipython").add("args",
                    Json.createObjectBuilder().add("code", "import os\nprint(os.environ.get('LLM_MODEL'))")).build());
            assertTrue(again.getString("content").startsWith("it-model-for-the-kernel"), again.toString());
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldBrowseWithTheBrowserImageVariant() {
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-browser-" + UUID.randomUUID())
                .add("sandbox", Json.createObjectBuilder().add("memoryMb", 2048)
                        .add("plugins", Json.createArrayBuilder().add("browser"))).build(), 180);
        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().getString("id");
        try {
            assertEquals("dockyard/sandbox-browser:latest", answer.json().getString("image"));
            API.act(id, DockyardApi.run("mkdir -p /tmp/www && echo '<title>Served here</title><h1>Inside</h1>' > "
                    + "/tmp/www/index.html && (python3 -m http.server 8124 --bind 127.0.0.1 --directory /tmp/www "
                    + ">/dev/null 2>&1 &) && sleep 1"));
            JsonObject page = API.act(id, Json.createObjectBuilder().add("action", "browse")
                    .add("args", Json.createObjectBuilder().add("url", "http://localhost:8124/")).build());
            assertEquals("browse", page.getString("observation"), page.toString());
            // OpenHands' frame around the page text (browser/utils.py get_agent_obs_text)
            assertTrue(page.getString("content").startsWith("[Current URL: http://localhost:8124/]\n"
                    + "============== BEGIN webpage content ==============\n# Served here"), page.getString("content"));
            assertTrue(page.getString("content").contains("# Inside"), page.getString("content"));
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldFailTheRuntimeNamingAPluginThatCannotStart() {
        // the offline base has no IPython kernel: its runtime image cannot start the plugin
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-plugins-broken-" + UUID.randomUUID())
                .add("sandbox", Json.createObjectBuilder().add("image", "dockyard/sandbox-base:bookworm")
                        .add("plugins", Json.createArrayBuilder().add("jupyter"))).build(), 300);
        JsonObject runtime = answer.json();
        try {
            assertEquals("ERROR", runtime.getString("status"), answer.body());
            String message = runtime.getString("statusMessage");
            assertTrue(message.startsWith("Provisioning failed at step 'readiness': plugin 'jupyter' failed to start"),
                    message);
            assertTrue(message.contains("jupyter_client is not installed"), message);
            assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + runtime.getString("id")));
        } finally {
            API.delete("runtimes/" + runtime.getString("id"));
        }
        DockyardApi.Answer unknown = API.post("runtimes", Json.createObjectBuilder().add("conversationId", "x")
                .add("sandbox", Json.createObjectBuilder().add("plugins", Json.createArrayBuilder().add("chrome")))
                .build());
        assertEquals(400, unknown.status(), unknown.body());
    }
}
