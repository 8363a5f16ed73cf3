package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The API the console needs beyond issue 15's first contracts, on a real control plane and real
 * sandboxes: deleting a user (their live runtimes first), rotating a key, listing users with their
 * usage, and the stream of every visible runtime's transitions.
 */
class UserAdministrationIT {

    private static final DockyardApi ADMIN = new DockyardApi();

    private record User(String id, String key, DockyardApi api) {
    }

    private static User newUser(String prefix, String role) {
        String userId = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        DockyardApi.Answer answer = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId)
                .add("role", role).build());
        assertEquals(201, answer.status(), answer.body());
        String key = answer.json().getString("apiKey");
        return new User(userId, key, ADMIN.withKey(key));
    }

    private static String provision(DockyardApi api) {
        DockyardApi.Answer answer = api.provision(Json.createObjectBuilder()
                .add("conversationId", "it-users-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        assertEquals("READY", answer.json().getString("status"));
        return answer.json().getString("id");
    }

    @Test
    void shouldDeleteTheUsersLiveRuntimesBeforeTheUser() {
        User doomed = newUser("doomed", "user");
        String runtime = provision(doomed.api());

        JsonObject listed = ADMIN.get("users").json().getJsonArray("users").stream().map(JsonObject.class::cast)
                .filter(u -> u.getString("userId").equals(doomed.id())).findFirst().orElseThrow();
        assertEquals(1, listed.getJsonObject("usage").getInt("runtimes"), listed.toString());

        DockyardApi.Answer deleted = ADMIN.delete("users/" + doomed.id());
        assertEquals(204, deleted.status(), deleted.body());

        DockyardApi.Answer after = ADMIN.get("runtimes/" + runtime);
        assertTrue(after.status() == 404 || "STOPPED".equals(after.json().getString("status")), after.body());
        assertEquals(401, doomed.api().get("users/me").status());
        assertFalse(ADMIN.get("users").body().contains("\"" + doomed.id() + "\""));
        DockyardApi.Answer again = ADMIN.delete("users/" + doomed.id());
        assertEquals(404, again.status(), again.body());
        assertTrue(again.contentType().startsWith("application/problem+json"), again.contentType());
    }

    @Test
    void shouldRefuseDeletingYourselfAndLetOnlyAdminsDelete() {
        User admin = newUser("admin2", "admin");
        User plain = newUser("plain", "user");
        DockyardApi.Answer self = admin.api().delete("users/" + admin.id());
        assertEquals(409, self.status(), self.body());
        assertTrue(self.contentType().startsWith("application/problem+json"), self.contentType());
        assertEquals(403, plain.api().delete("users/" + admin.id()).status());
        assertEquals(403, plain.api().get("users").status());
        assertEquals(204, ADMIN.delete("users/" + admin.id()).status());
        assertEquals(204, ADMIN.delete("users/" + plain.id()).status());
    }

    @Test
    void shouldRotateAKeyAndRefuseTheOldOne() {
        User user = newUser("rotating", "user");
        User other = newUser("other", "user");
        DockyardApi.Answer rotated = user.api().post("users/" + user.id() + "/keys", "", null);
        assertEquals(201, rotated.status(), rotated.body());
        String newKey = rotated.json().getString("apiKey");
        assertNotEquals(user.key(), newKey);
        assertEquals(401, user.api().get("users/me").status());
        DockyardApi renewed = ADMIN.withKey(newKey);
        assertEquals(user.id(), renewed.get("users/me").json().getString("userId"));

        assertEquals(403, renewed.post("users/" + other.id() + "/keys", "", null).status());
        DockyardApi.Answer byAdmin = ADMIN.post("users/" + other.id() + "/keys", "", null);
        assertEquals(201, byAdmin.status(), byAdmin.body());
        assertEquals(401, other.api().get("users/me").status());
        assertEquals(200, ADMIN.withKey(byAdmin.json().getString("apiKey")).get("users/me").status());
        assertEquals(404, ADMIN.post("users/nobody-" + UUID.randomUUID() + "/keys", "", null).status());
        ADMIN.delete("users/" + user.id());
        ADMIN.delete("users/" + other.id());
    }

    @Test
    void shouldStreamTheTransitionsOfEveryRuntimeTheCallerMaySee() throws Exception {
        User alice = newUser("alice", "user");
        User bob = newUser("bob", "user");
        CompletableFuture<String> adminFeed = CompletableFuture.supplyAsync(
                () -> ADMIN.stream("runtimes/events", Duration.ofSeconds(40)));
        CompletableFuture<String> bobFeed = CompletableFuture.supplyAsync(
                () -> bob.api().stream("runtimes/events", Duration.ofSeconds(40)));
        Thread.sleep(2000);
        String runtime = provision(alice.api());
        try {
            String admins = adminFeed.get(60, TimeUnit.SECONDS);
            String bobs = bobFeed.get(60, TimeUnit.SECONDS);
            assertTrue(admins.lines().anyMatch(l -> l.matches("event: ?status")), admins);
            String ready = admins.lines().filter(l -> l.startsWith("data:") && l.contains(runtime) && l.contains("READY"))
                    .findFirst().orElseThrow(() -> new AssertionError("no READY of " + runtime + " in " + admins));
            JsonObject event = DockyardApi.parse(ready.substring("data:".length()).trim());
            assertEquals(alice.id(), event.getString("userId"));
            assertFalse(bobs.contains(runtime), bobs);
        } finally {
            alice.api().delete("runtimes/" + runtime);
            ADMIN.delete("users/" + alice.id());
            ADMIN.delete("users/" + bob.id());
        }
    }
}
