package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.Multipart;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Users, keys, isolation, quotas and one runtime per conversation, through the API on real parts. */
class TenancyIT {

    private static final DockyardApi ADMIN = new DockyardApi();

    private static DockyardApi newUser(String prefix) {
        String userId = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        DockyardApi.Answer answer = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId)
                .add("role", "user").build());
        assertEquals(201, answer.status(), answer.body());
        JsonObject created = answer.json();
        assertEquals(userId, created.getString("userId"));
        assertTrue(created.getString("apiKey").startsWith("dy_"));
        return ADMIN.withKey(created.getString("apiKey"));
    }

    @Test
    void shouldLetOnlyAdminsCreateUsers() {
        DockyardApi user = newUser("plain");
        DockyardApi.Answer refused = user.post("users", Json.createObjectBuilder().add("userId", "sneaky").build());
        assertEquals(403, refused.status(), refused.body());
        assertEquals(400, ADMIN.post("users", Json.createObjectBuilder().add("userId", "bad id!").build()).status());
        assertEquals("user", user.get("users/me").json().getString("role"));
    }

    @Test
    void shouldAnswer404ToUserBForEveryEndpointOnUserAsRuntime() {
        DockyardApi alice = newUser("alice");
        DockyardApi bob = newUser("bob");
        DockyardApi.Answer provisioned = alice.provision(Json.createObjectBuilder()
                .add("conversationId", "it-tenancy-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, provisioned.status(), provisioned.body());
        String id = provisioned.json().getString("id");
        try {
            assertEquals(404, bob.get("runtimes/" + id).status());
            assertEquals(404, bob.post("runtimes/" + id + "/actions", DockyardApi.run("id")).status());
            assertEquals(404, bob.get("runtimes/" + id + "/files?path=/workspace").status());
            Multipart multipart = new Multipart();
            assertEquals(404, bob.postBytes("runtimes/" + id + "/files?destination=/workspace", multipart.contentType(),
                    multipart.file("x.txt", "x".getBytes())).status());
            assertEquals(404, bob.delete("runtimes/" + id).status());
            assertFalse(bob.get("runtimes").body().contains(id));
            // exactly like an unknown id
            assertEquals(bob.get("runtimes/rt-0000000000000000").json().getString("type"),
                    bob.get("runtimes/" + id).json().getString("type"));
            // the owner and admins still see it, and it is untouched
            assertEquals("READY", alice.get("runtimes/" + id).json().getString("status"));
            assertTrue(ADMIN.get("runtimes").body().contains(id));
            assertEquals("alice-ok", alice.act(id, DockyardApi.run("echo alice-ok")).getString("content"));
        } finally {
            alice.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldAdmitExactlyTheQuotaOutOfThirtyParallelRequests() throws Exception {
        DockyardApi quoted = newUser("quota");
        String userId = quoted.get("users/me").json().getString("userId");
        DockyardApi.Answer set = ADMIN.put("users/" + userId + "/quota", Json.createObjectBuilder()
                .add("maxRuntimes", 3).build());
        assertEquals(200, set.status(), set.body());

        String run = UUID.randomUUID().toString().substring(0, 8);
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String conversation = "it-quota-" + run + "-" + i;
            posts.add(CompletableFuture.supplyAsync(() -> quoted.post("runtimes",
                    Json.createObjectBuilder().add("conversationId", conversation).build())));
        }
        Map<Integer, Integer> statuses = new HashMap<>();
        List<String> admitted = new ArrayList<>();
        for (CompletableFuture<DockyardApi.Answer> post : posts) {
            DockyardApi.Answer answer = post.get();
            statuses.merge(answer.status(), 1, Integer::sum);
            if (answer.status() == 202) {
                admitted.add(answer.json().getString("id"));
            } else {
                assertEquals(429, answer.status(), answer.body());
                assertEquals("maxRuntimes", answer.json().getString("limit"));
                assertTrue(answer.json().getString("type").endsWith("/quota-exceeded"));
            }
        }
        try {
            assertEquals(Map.of(202, 3, 429, 27), statuses);
            Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> admitted.stream()
                    .allMatch(id -> quoted.get("runtimes/" + id).json().getString("status").equals("READY")));
            // the ledger (live runtimes) and Docker agree
            assertEquals(3, DockerCli.containersLabelled("dev.dockyard.control-plane=" + System.getProperty(
                    "dockyard.instance", "it")).stream().filter(name -> admitted.stream()
                    .anyMatch(id -> name.equals("dockyard-" + id))).count());
            // releasing one admits one more
            assertEquals(204, quoted.delete("runtimes/" + admitted.remove(0)).status());
            DockyardApi.Answer again = quoted.post("runtimes", Json.createObjectBuilder()
                    .add("conversationId", "it-quota-" + run + "-again").build());
            assertEquals(202, again.status(), again.body());
            admitted.add(again.json().getString("id"));
        } finally {
            admitted.forEach(id -> quoted.delete("runtimes/" + id));
        }
    }

    @Test
    void shouldCreateExactlyOneRuntimeForTwentyParallelRequestsOfOneConversation() throws Exception {
        DockyardApi user = newUser("racer");
        String conversation = "it-race-" + UUID.randomUUID();
        List<CompletableFuture<DockyardApi.Answer>> posts = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            posts.add(CompletableFuture.supplyAsync(() -> user.post("runtimes",
                    Json.createObjectBuilder().add("conversationId", conversation).build())));
        }
        Set<String> named = new HashSet<>();
        int created = 0;
        for (CompletableFuture<DockyardApi.Answer> post : posts) {
            DockyardApi.Answer answer = post.get();
            if (answer.status() == 201 || answer.status() == 202) {
                created++;
                named.add(answer.json().getString("id"));
            } else {
                assertEquals(409, answer.status(), answer.body());
                named.add(answer.json().getJsonObject("runtime").getString("id"));
            }
        }
        String id = named.iterator().next();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(90))
                    .until(() -> !user.get("runtimes/" + id).json().getString("status").contains("START"));
            assertEquals(1, created);
            assertEquals(1, named.size(), "every answer names the same runtime: " + named);
            assertEquals(1, DockerCli.containersLabelled("dev.dockyard.conversation-id=" + conversation).size());
            assertEquals(1, user.get("runtimes?conversationId=" + conversation).json().getJsonArray("runtimes")
                    .stream().map(v -> v.asJsonObject().getString("status"))
                    .filter(s -> !s.equals("ERROR") && !s.equals("STOPPED")).collect(Collectors.toList()).size());
        } finally {
            user.delete("runtimes/" + id);
        }
    }
}
