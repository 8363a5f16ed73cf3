package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code sandbox.enableAutoLint} from the provision request to the sandbox's editor: with it on,
 * a str_replace that introduces an undefined name in a .py file answers openhands-aci's lint
 * text (flake8 in the sandbox image); off, the same edit answers without it; anything but a
 * boolean is a 400.
 */
class AutoLintThroughControlPlaneIT {

    private static final DockyardApi API = new DockyardApi();

    private static JsonObject edit(String id, JsonObject args) {
        return API.act(id, Json.createObjectBuilder().add("action", "edit").add("args", args).build());
    }

    private static String introduceAnUndefinedName(boolean autoLint) {
        var sandbox = Json.createObjectBuilder();
        if (autoLint) {
            sandbox.add("enableAutoLint", true);
        }
        DockyardApi.Answer answer = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-autolint-" + UUID.randomUUID()).add("sandbox", sandbox).build(), 120);
        assertEquals(201, answer.status(), answer.body());
        String id = answer.json().getString("id");
        try {
            String path = "/workspace/lint-" + UUID.randomUUID().toString().substring(0, 8) + ".py";
            JsonObject created = edit(id, Json.createObjectBuilder().add("command", "create").add("path", path)
                    .add("file_text", "x = 1\nprint(x)\n").build());
            assertEquals("File created successfully at: " + path, created.getString("content"), created.toString());
            JsonObject replaced = edit(id, Json.createObjectBuilder().add("command", "str_replace").add("path", path)
                    .add("old_str", "print(x)").add("new_str", "print(y)").build());
            // the edit is kept either way, as openhands-aci keeps it
            JsonObject cat = API.act(id, DockyardApi.run("cat " + path));
            assertTrue(cat.getString("content").contains("print(y)"), cat.toString());
            return replaced.getString("content");
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    @Test
    void shouldAppendOpenHandsLintToAnEditWhenTheRuntimeAsksForIt() {
        String content = introduceAnUndefinedName(true);
        assertTrue(content.endsWith("     1\tx = 1\n     2\tprint(y)\n     3\t\n\nLinting issues found in the changes:\n"
                + "- Line 2, Column 7: F821 undefined name 'y'\n\nReview the changes and make sure they are as "
                + "expected. Edit the file again if necessary."), content);
    }

    @Test
    void shouldNotLintByDefault() {
        String content = introduceAnUndefinedName(false);
        assertFalse(content.contains("Linting"), content);
        assertTrue(content.endsWith("     3\t\nReview the changes and make sure they are as expected. Edit the file "
                + "again if necessary."), content);
    }

    @Test
    void shouldRefuseAnEnableAutoLintThatIsNotABoolean() {
        DockyardApi.Answer refused = API.post("runtimes", Json.createObjectBuilder().add("conversationId", "x")
                .add("sandbox", Json.createObjectBuilder().add("enableAutoLint", "yes")).build());
        assertEquals(400, refused.status(), refused.body());
        assertTrue(refused.contentType().startsWith("application/problem+json"), refused.contentType());
        assertEquals("sandbox.enableAutoLint must be a boolean", DockyardApi.parse(refused.body()).getString("detail"));
    }
}
