package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Pause freezes the sandbox and refuses actions; resume answers once READY, with memory and shell intact. */
class PauseResumeIT {

    private static final DockyardApi API = new DockyardApi();

    @Test
    void shouldFreezeAndThawKeepingTheShellAndItsProcesses() {
        DockyardApi.Answer created = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-pause-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, created.status(), created.body());
        String id = created.json().getString("id");
        try {
            API.act(id, DockyardApi.run("cd /tmp && export KEPT=still-here && (sleep 600 &)"));

            DockyardApi.Answer paused = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
            assertEquals(200, paused.status(), paused.body());
            assertEquals("PAUSED", paused.json().getString("status"));
            assertEquals("true", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"));
            DockyardApi.Answer refused = API.post("runtimes/" + id + "/actions", DockyardApi.run("true"));
            assertEquals(409, refused.status());
            assertEquals("PAUSED", refused.json().getString("runtimeStatus"));
            assertEquals(200, API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build()).status(),
                    "pausing twice is fine");

            DockyardApi.Answer resumed = API.post("runtimes/" + id + "/resume", Json.createObjectBuilder().build());
            assertEquals(200, resumed.status(), resumed.body());
            assertEquals("READY", resumed.json().getString("status"));
            assertTrue(resumed.json().getString("statusMessage").startsWith("Resumed in "), resumed.body());
            assertEquals("false", DockerCli.inspect("dockyard-" + id, "{{.State.Paused}}"));
            System.out.printf("pause/resume: %s; %s%n", paused.json().getString("statusMessage"),
                    resumed.json().getString("statusMessage"));
            JsonObject shell = API.act(id, DockyardApi.run("echo $(pwd) $KEPT $(pgrep -c -f 'sleep 600')"));
            assertEquals("/tmp still-here 1", shell.getString("content").strip());
        } finally {
            API.delete("runtimes/" + id);
        }
        DockyardApi.Answer gone = API.post("runtimes/" + id + "/pause", Json.createObjectBuilder().build());
        assertEquals(409, gone.status(), gone.body());
        assertEquals(404, API.post("runtimes/rt-0000000000000000/resume", Json.createObjectBuilder().build()).status());
    }
}
