package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.EventFeed;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
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
        String runtime = null;
        String bobsOwn = null;
        try (EventFeed adminFeed = ADMIN.follow("runtimes/events");
             EventFeed bobFeed = bob.api().follow("runtimes/events")) {
            // each feed's first comment: both follow before anything happens
            adminFeed.await(text -> !text.isEmpty(), Duration.ofSeconds(30));
            bobFeed.await(text -> !text.isEmpty(), Duration.ofSeconds(30));
            String id = provision(alice.api());
            runtime = id;
            String admins = adminFeed.await(text -> readyOf(text, id).isPresent(), Duration.ofSeconds(60));
            assertTrue(admins.lines().anyMatch(l -> l.matches("event: ?status")), admins);
            JsonObject event = DockyardApi.parse(readyOf(admins, id).orElseThrow().substring("data:".length()).trim());
            assertEquals(alice.id(), event.getString("userId"));

            // a feed sends in commit order: once bob's own runtime's first transition (committed after
            // alice's READY) has come, alice's would have come before it, were it his to see
            DockyardApi.Answer own = bob.api().post("runtimes", Json.createObjectBuilder()
                    .add("conversationId", "it-users-" + UUID.randomUUID()).build());
            assertEquals(202, own.status(), own.body());
            String mine = own.json().getString("id");
            bobsOwn = mine;
            String bobs = bobFeed.await(text -> text.contains(mine), Duration.ofSeconds(60));
            assertFalse(bobs.contains(id), bobs);
        } finally {
            if (runtime != null) {
                alice.api().delete("runtimes/" + runtime);
            }
            if (bobsOwn != null) {
                bob.api().delete("runtimes/" + bobsOwn);
            }
            ADMIN.delete("users/" + alice.id());
            ADMIN.delete("users/" + bob.id());
        }
    }

    /** The {@code data:} line of {@code runtime}'s READY in an event stream's text. */
    private static Optional<String> readyOf(String text, String runtime) {
        return text.lines().filter(l -> l.startsWith("data:") && l.contains(runtime) && l.contains("READY")).findFirst();
    }

    @Test
    void shouldRefuseCreatingAnExistingIdOrTheBootstrapAdminsWith409() {
        User existing = newUser("existing", "user");
        User otherAdmin = newUser("other-admin", "admin");
        try {
            DockyardApi.Answer again = ADMIN.post("users", Json.createObjectBuilder().add("userId", existing.id())
                    .add("role", "admin").build());
            assertEquals(409, again.status(), again.body());
            assertTrue(again.contentType().startsWith("application/problem+json"), again.contentType());
            assertTrue(again.json().getString("detail").contains("/users/" + existing.id() + "/keys"),
                    "points to the key rotation: " + again.body());
            DockyardApi.Answer me = existing.api().get("users/me");
            assertEquals(200, me.status(), "its key still works: " + me.body());
            assertEquals("user", me.json().getString("role"), "its role is unchanged");

            DockyardApi.Answer bootstrap = ADMIN.post("users", Json.createObjectBuilder().add("userId", "admin")
                    .add("role", "user").build());
            assertEquals(409, bootstrap.status(), bootstrap.body());
            assertEquals(409, otherAdmin.api().post("users", Json.createObjectBuilder().add("userId", "admin")
                    .add("role", "admin").build()).status());
            DockyardApi.Answer deleteBootstrap = otherAdmin.api().delete("users/admin");
            assertEquals(409, deleteBootstrap.status(), deleteBootstrap.body());
            assertEquals(403, existing.api().delete("users/admin").status());
        } finally {
            ADMIN.delete("users/" + existing.id());
            ADMIN.delete("users/" + otherAdmin.id());
        }
    }

    @Test
    void shouldGiveAnIdCreatedAgainNoneOfTheDeletedUsersRecords() {
        User first = newUser("reborn", "user");
        assertEquals(204, first.api().put("credentials/GIT_TOKEN", Json.createObjectBuilder().add("type", "secret")
                .add("value", "ghp-of-the-first-account").build()).status());
        String runtime = provision(first.api());
        DockyardApi.Answer kept = first.api().delete("runtimes/" + runtime + "?keepWorkspace=true");
        assertEquals(200, kept.status(), kept.body());
        String workspace = kept.json().getString("id");
        String idempotencyKey = UUID.randomUUID().toString();
        JsonObject body = Json.createObjectBuilder().add("conversationId", "it-users-reborn-" + idempotencyKey).build();
        DockyardApi.Answer firstAnswer = first.api().postIdempotent("runtimes", body, idempotencyKey);
        assertEquals(202, firstAnswer.status(), firstAnswer.body());
        String firstId = firstAnswer.json().getString("id");

        assertEquals(204, ADMIN.delete("users/" + first.id()).status());
        DockyardApi.Answer recreated = ADMIN.post("users", Json.createObjectBuilder().add("userId", first.id())
                .add("role", "user").build());
        assertEquals(201, recreated.status(), recreated.body());
        DockyardApi again = ADMIN.withKey(recreated.json().getString("apiKey"));
        String secondId = null;
        try {
            assertFalse(again.get("credentials").body().contains("GIT_TOKEN"), "no credential of the first account");
            assertFalse(again.get("workspaces").body().contains(workspace), "no kept workspace of the first account");
            assertEquals(404, again.get("workspaces/" + workspace).status());
            assertEquals(404, ADMIN.get("workspaces/" + workspace).status(), "the workspace is gone, not hidden");
            assertEquals(0, again.get("runtimes").json().getJsonArray("runtimes").size(), "no runtime history");
            DockyardApi.Answer replay = again.postIdempotent("runtimes", body, idempotencyKey);
            assertEquals(202, replay.status(), replay.body());
            secondId = replay.json().getString("id");
            assertNotEquals(firstId, secondId, "the first account's answer is not replayed");
            assertNotEquals("true", replay.raw().headers().firstValue("Idempotent-Replayed").orElse(""));
        } finally {
            if (secondId != null) {
                again.delete("runtimes/" + secondId);
            }
            ADMIN.delete("users/" + first.id());
        }
    }
}
