package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** "replace": true — the new runtime is READY before the old one goes; a failed replacement keeps the old one. */
class ReplaceIT {

    private static final DockyardApi API = new DockyardApi();

    @Test
    void shouldReplaceALiveRuntimeOnlyOnceTheNewOneIsReady() {
        String conversation = "it-replace-" + UUID.randomUUID();
        DockyardApi.Answer first = API.provision(Json.createObjectBuilder().add("conversationId", conversation).build(), 120);
        assertEquals(201, first.status(), first.body());
        String oldId = first.json().getString("id");
        String newId = null;
        try {
            // a replacement that fails keeps the old runtime serving
            DockyardApi.Answer absent = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                    .add("replace", true).add("sandbox", Json.createObjectBuilder()
                            .add("image", "dockyard/absent-replacement:none")).build(), 60);
            assertEquals(404, absent.status(), "an absent image is refused before anything starts: " + absent.body());
            assertEquals("READY", API.get("runtimes/" + oldId).json().getString("status"));
            // a replacement whose provisioning fails (at its image step, on purpose)
            DockyardApi.Answer failed = API.provisionFailingAt(Json.createObjectBuilder()
                    .add("conversationId", conversation).add("replace", true).build(), "image", 60);
            assertEquals("ERROR", failed.json().getString("status"), failed.body());
            assertEquals("READY", API.get("runtimes/" + oldId).json().getString("status"));
            assertEquals("still here", API.act(oldId, DockyardApi.run("echo still here")).getString("content"));

            // a replacement with new settings takes over once READY
            DockyardApi.Answer replaced = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                    .add("replace", true).add("sandbox", Json.createObjectBuilder().add("memoryMb", 768)).build(), 120);
            assertEquals(201, replaced.status(), replaced.body());
            JsonObject fresh = replaced.json();
            newId = fresh.getString("id");
            assertFalse(newId.equals(oldId));
            assertEquals(768, fresh.getJsonObject("resources").getInt("memoryMb"));
            JsonObject old = API.get("runtimes/" + oldId).json();
            assertEquals("STOPPED", old.getString("status"));
            assertEquals("Replaced by " + newId, old.getString("statusMessage"));
            assertEquals(List.of("dockyard-" + newId), DockerCli.containersLabelled(
                    "dev.dockyard.conversation-id=" + conversation));
            // the conversation now belongs to the new runtime
            DockyardApi.Answer again = API.post("runtimes", Json.createObjectBuilder()
                    .add("conversationId", conversation).build());
            assertEquals(409, again.status());
            assertEquals(newId, again.json().getJsonObject("runtime").getString("id"));
            assertTrue(!Instant.parse(fresh.getString("readyAt")).isAfter(Instant.now()));
        } finally {
            API.delete("runtimes/" + oldId);
            if (newId != null) {
                API.delete("runtimes/" + newId);
            }
        }
    }
}
