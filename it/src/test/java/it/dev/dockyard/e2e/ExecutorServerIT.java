package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code sandbox.executorServer}: a runtime's executor runs on the server it asked for — the WAR
 * running itself on the JDK's HTTP server ({@code embedded}, the default) or deployed on Open
 * Liberty in the sandbox ({@code liberty}) — and says which; anything else is refused up front.
 */
class ExecutorServerIT {

    private static final DockyardApi API = new DockyardApi();

    private static JsonObjectBuilder request(String name, JsonObjectBuilder sandbox) {
        return Json.createObjectBuilder().add("conversationId", "it-executor-server-" + name + "-" + UUID.randomUUID())
                .add("sandbox", sandbox);
    }

    @Test
    void shouldRunTheEmbeddedServerByDefault() {
        assertRunsOn(request("default", Json.createObjectBuilder()), "embedded", "dev.dockyard.executor.embedded.EmbeddedExecutor");
    }

    @Test
    void shouldRunLibertyWhenAsked() {
        assertRunsOn(request("liberty", Json.createObjectBuilder().add("executorServer", "liberty")), "liberty",
                "ws-server.jar");
    }

    @Test
    void shouldRefuseAnUnknownServerWithAProblem() {
        DockyardApi.Answer refused = API.provision(request("tomcat", Json.createObjectBuilder()
                .add("executorServer", "tomcat")).build(), 0);
        assertEquals(400, refused.status(), refused.body());
        assertTrue(refused.contentType().startsWith("application/problem+json"), refused.contentType());
        assertTrue(refused.body().contains("executorServer"), refused.body());
    }

    private static void assertRunsOn(JsonObjectBuilder body, String server, String processMark) {
        DockyardApi.Answer created = API.provision(body.build(), 180);
        assertEquals(201, created.status(), created.body());
        String id = created.json().getString("id");
        try {
            assertEquals("READY", created.json().getString("status"), created.body());
            assertEquals(server, created.json().getJsonObject("sandbox").getString("executorServer"), created.body());
            assertEquals(server, API.get("runtimes/" + id).json().getJsonObject("sandbox").getString("executorServer"));
            String container = "dockyard-" + id;
            assertTrue(DockerCli.inspect(container, "{{range .Config.Env}}{{println .}}{{end}}")
                    .lines().anyMatch(("DOCKYARD_EXECUTOR_SERVER=" + server)::equals));
            String processes = DockerCli.run("top", container).output();
            assertTrue(processes.contains(processMark), processes);
            assertFalse(processes.contains(server.equals("liberty") ? "EmbeddedExecutor" : "ws-server.jar"), processes);
            assertEquals("answered by " + server, API.act(id, DockyardApi.run("echo answered by " + server))
                    .getString("content").strip());
        } finally {
            API.delete("runtimes/" + id);
        }
    }
}
