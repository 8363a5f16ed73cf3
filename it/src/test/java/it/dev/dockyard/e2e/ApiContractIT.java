package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

/** API.md's error contract on the running server: problem+json, 401, 404, 400, nothing half-done. */
class ApiContractIT {

    private static final DockyardApi API = new DockyardApi();

    private static void assertProblem(DockyardApi.Answer answer, int status, String typeSuffix) {
        assertEquals(status, answer.status(), answer.body());
        assertTrue(answer.contentType().startsWith("application/problem+json"), answer.contentType());
        JsonObject problem = answer.json();
        assertTrue(problem.getString("type").endsWith("/" + typeSuffix), problem.toString());
        assertEquals(status, problem.getInt("status"));
        assertFalse(answer.body().contains("at dev.dockyard"), "no stack traces: " + answer.body());
    }

    @Test
    void shouldAnswer401WithoutOrWithAWrongKey() {
        assertProblem(API.withKey(null).get("runtimes"), 401, "unauthorized");
        assertProblem(API.withKey("wrong").get("runtimes"), 401, "unauthorized");
    }

    @Test
    void shouldAnswer404ForUnknownRuntime() {
        assertProblem(API.get("runtimes/rt-unknown"), 404, "not-found");
        assertProblem(API.delete("runtimes/rt-unknown"), 404, "not-found");
        assertProblem(API.post("runtimes/rt-unknown/actions", DockyardApi.run("echo")), 404, "not-found");
    }

    @Test
    void shouldRejectBadProvisionBodiesAndCreateNothing() {
        // a user of its own: the suites beside this one provision as the admin (validation is the same)
        DockyardApi user = API.newUser("it-contract", "user");
        try {
            rejectBadBodies(user);
        } finally {
            API.delete("users/" + user.get("users/me").json().getString("userId"));
        }
    }

    private static void rejectBadBodies(DockyardApi user) {
        int before = user.get("runtimes").json().getJsonArray("runtimes").size();
        assertProblem(user.post("runtimes", Json.createObjectBuilder().build()), 400, "validation");
        assertProblem(user.post("runtimes", "{not json", null), 400, "validation");
        assertProblem(user.post("runtimes", Json.createObjectBuilder().add("conversationId", "c")
                .add("sandbox", Json.createObjectBuilder().add("cpus", 1000)).build()), 400, "validation");
        assertProblem(user.post("runtimes", Json.createObjectBuilder().add("conversationId", "c")
                .add("sandbox", Json.createObjectBuilder().add("image", "Not A Valid/Image!!")).build()), 400, "validation");
        assertProblem(user.post("runtimes", Json.createObjectBuilder().add("conversationId", "c")
                .add("sandbox", Json.createObjectBuilder().add("memoryMb", "lots")).build()), 400, "validation");
        assertEquals(before, user.get("runtimes").json().getJsonArray("runtimes").size());
    }

    @Test
    void shouldRejectAnUnknownStatusFilter() {
        assertProblem(API.get("runtimes?status=SLEEPING"), 400, "validation");
    }
}
