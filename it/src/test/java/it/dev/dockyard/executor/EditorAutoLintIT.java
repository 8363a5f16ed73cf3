package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The editor's auto-lint in a real sandbox started as OpenHands starts one with
 * {@code sandbox.enable_auto_lint} ({@code ENABLE_AUTO_LINT=true} in its environment): the
 * fixtures of {@code conformance-auto-lint/}, written from openhands-aci's editor and linter, with
 * the image's flake8.
 */
@SandboxTest.StartedWith(args = {"-e", "ENABLE_AUTO_LINT=true"})
class EditorAutoLintIT extends SandboxTest {

    private static final List<String> FIXTURES = List.of("editor-lint-undefined-name.json",
            "editor-lint-syntax-error.json", "editor-lint-clean.json", "editor-lint-not-python.json",
            "editor-lint-preexisting-error.json");

    @TestFactory
    Stream<DynamicTest> shouldLintEditsAsOpenHandsEditorDoes() {
        return FIXTURES.stream().map(name -> DynamicTest.dynamicTest(name, () -> run(name)));
    }

    private void run(String name) throws IOException {
        JsonObject fixture;
        try (InputStream in = EditorAutoLintIT.class.getResourceAsStream("/conformance-auto-lint/" + name)) {
            fixture = read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        for (JsonValue command : fixture.getJsonArray("setup")) {
            JsonObject setup = sandbox.run(w(((JsonString) command).getString()));
            assertEquals(0, setup.getJsonObject("extras").getJsonObject("metadata").getInt("exit_code"),
                    setup.toString());
        }
        JsonObject observation = sandbox.execute(read(w(fixture.getJsonObject("action").toString())));
        String difference = differs("", read(w(fixture.getJsonObject("expect").toString())), observation);
        assertNull(difference, name + " (" + fixture.getString("source") + "): " + difference + "\n" + observation);
    }

    /** The conformance format's rules: objects member by member, "<any>", "<re:...>", "<absent>". */
    private static String differs(String where, JsonValue expected, JsonValue actual) {
        if (expected instanceof JsonString s && s.getString().equals("<absent>")) {
            return actual == null ? null : where + ": should be absent, is " + actual;
        }
        if (actual == null) {
            return where + ": missing";
        }
        if (expected instanceof JsonString s && s.getString().equals("<any>")) {
            return null;
        }
        if (expected instanceof JsonString s && s.getString().startsWith("<re:") && s.getString().endsWith(">")) {
            String re = s.getString().substring(4, s.getString().length() - 1);
            return actual instanceof JsonString a && a.getString().matches(re) ? null
                    : where + ": " + actual + " does not match " + re;
        }
        if (expected instanceof JsonObject e && actual instanceof JsonObject a) {
            for (var member : e.entrySet()) {
                String d = differs(where + "." + member.getKey(), member.getValue(), a.get(member.getKey()));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (expected instanceof JsonArray e && actual instanceof JsonArray a) {
            if (e.size() != a.size()) {
                return where + ": " + a.size() + " elements, expected " + e.size();
            }
            for (int i = 0; i < e.size(); i++) {
                String d = differs(where + "[" + i + "]", e.get(i), a.get(i));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        return expected.equals(actual) ? null : where + ": expected " + expected + " but was " + actual;
    }

    private static JsonObject read(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }
}
