package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.io.StringReader;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProtocolJsonTest {

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void shouldReadRunActionWithDefaults() {
        Action action = ProtocolJson.actionFromJson(json("{\"action\":\"run\",\"args\":{\"command\":\"ls\"}}"));
        CmdRunAction run = assertInstanceOf(CmdRunAction.class, action);
        assertEquals("ls", run.command());
        assertFalse(run.isInput());
        assertFalse(run.blocking());
        assertFalse(run.isStatic());
        assertNull(run.cwd());
        assertNull(run.timeout());
        assertEquals(SecurityRisk.UNKNOWN, run.securityRisk());
    }

    @Test
    void shouldReadAllRunArgumentsAndIgnoreUnknownOnes() {
        Action action = ProtocolJson.actionFromJson(json("""
                {"action":"run","timeout":5,"args":{"command":"C-c","is_input":true,"blocking":true,
                 "is_static":true,"cwd":"/tmp","hidden":true,"thought":"t","security_risk":2,"whatever":[1]}}"""));
        CmdRunAction run = assertInstanceOf(CmdRunAction.class, action);
        assertTrue(run.isInput());
        assertTrue(run.blocking());
        assertTrue(run.isStatic());
        assertTrue(run.hidden());
        assertEquals("/tmp", run.cwd());
        assertEquals("t", run.thought());
        assertEquals(5.0, run.timeout());
        assertEquals(SecurityRisk.HIGH, run.securityRisk());
    }

    @Test
    void shouldRoundTripEveryActionType() {
        List<Action> actions = List.of(
                CmdRunAction.of("echo hi"),
                new FileReadAction("/w/a.txt", 2, 5, List.of(1, -1), "oh_aci", SecurityRisk.LOW, 3.0),
                FileWriteAction.of("/w/b.txt", "x\ny"),
                new FileEditAction("/w/c", "str_replace", null, "a", "b", null, null, null, 1, -1, "oh_aci",
                        SecurityRisk.MEDIUM, null),
                new IPythonRunCellAction("print(1)", "", true, "", SecurityRisk.UNKNOWN, null),
                new BrowseUrlAction("http://localhost:8000", SecurityRisk.UNKNOWN, null),
                new BrowseInteractiveAction("goto('http://localhost')", SecurityRisk.UNKNOWN, null));
        for (Action action : actions) {
            assertEquals(action, ProtocolJson.actionFromJson(ProtocolJson.toJson(action)), action.toString());
        }
    }

    @Test
    void shouldRejectUnknownActionType() {
        var e = assertThrows(UnknownActionException.class,
                () -> ProtocolJson.actionFromJson(json("{\"action\":\"fly\",\"args\":{}}")));
        assertEquals("Unknown action type: fly", e.getMessage());
    }

    @Test
    void shouldRejectMistypedArguments() {
        assertThrows(InvalidActionException.class,
                () -> ProtocolJson.actionFromJson(json("{\"action\":\"run\",\"args\":{\"command\":5}}")));
        assertThrows(InvalidActionException.class,
                () -> ProtocolJson.actionFromJson(json("{\"action\":\"read\",\"args\":{}}")));
        assertThrows(InvalidActionException.class,
                () -> ProtocolJson.actionFromJson(json("{\"action\":\"run\",\"timeout\":-1,\"args\":{}}")));
        assertThrows(InvalidActionException.class,
                () -> ProtocolJson.actionFromJson(json("{\"action\":\"read\",\"args\":{\"path\":\"/a\",\"start\":1.5}}")));
        assertThrows(InvalidActionException.class,
                () -> ProtocolJson.actionFromJson(json("{\"args\":{}}")));
    }

    @Test
    void shouldWriteRunObservationInOpenHandsShape() {
        var metadata = new CmdOutputMetadata(0, -1, "dockyard", "sbx", "/workspace", "/usr/bin/python3", "", "");
        JsonObject dict = ProtocolJson.toJson(new CmdOutputObservation("hello", "echo hello", false, metadata));
        assertEquals("run", dict.getString("observation"));
        assertEquals("hello", dict.getString("content"));
        assertTrue(dict.getBoolean("success"));
        assertEquals("Command `echo hello` executed with exit code 0.", dict.getString("message"));
        JsonObject extras = dict.getJsonObject("extras");
        assertEquals("echo hello", extras.getString("command"));
        JsonObject meta = extras.getJsonObject("metadata");
        assertEquals(0, meta.getInt("exit_code"));
        assertEquals("/workspace", meta.getString("working_dir"));
        assertEquals("dockyard", meta.getString("username"));
    }

    @Test
    void shouldReportFailureOfNonZeroExit() {
        var metadata = new CmdOutputMetadata(2, -1, null, null, "/", null, "", "");
        JsonObject dict = ProtocolJson.toJson(new CmdOutputObservation("", "false", false, metadata));
        assertFalse(dict.getBoolean("success"));
    }

    @Test
    void shouldSerialiseAnEditObservationWithOpenHandsExtrasInTheirOrder() {
        JsonObject dict = ProtocolJson.toJson(new FileEditObservation("ok", "/w/a", false, null, null, "oh_aci", ""));
        assertEquals(List.of("path", "prev_exist", "old_content", "new_content", "impl_source", "diff", "_diff_cache"),
                List.copyOf(dict.getJsonObject("extras").keySet()));
        assertTrue(dict.getJsonObject("extras").isNull("_diff_cache"));
        assertEquals("I edited the file /w/a.", dict.getString("message"));
        assertFalse(dict.containsKey("success"));
    }

    @Test
    void shouldRoundTripEveryObservationType() {
        List<Observation> observations = List.of(
                new CmdOutputObservation("out", "ls", true, CmdOutputMetadata.unknown()),
                new FileReadObservation("text", "/w/a", "default"),
                new FileWriteObservation("", "/w/a"),
                new FileEditObservation("ok", "/w/a", true, "a", "b", "oh_aci", "--- a\n+++ b"),
                new IPythonRunCellObservation("1", "print(1)", List.of("data:image/png;base64,AA==")),
                new IPythonRunCellObservation("1", "print(1)", List.of()),
                new BrowseObservation("page", "http://localhost/", "browse", "data:image/png;base64,AA==",
                        "/workspace/.browser_screenshots/s.png", false, List.of("http://localhost/"), 0, "",
                        "goto(\"http://localhost/\")", ""),
                new ErrorObservation("File not found: /x", ""));
        for (Observation observation : observations) {
            assertEquals(observation, ProtocolJson.observationFromJson(ProtocolJson.toJson(observation)));
        }
    }

    @Test
    void shouldSendIPythonSuccessAndNullImagesAsOpenHandsDoes() {
        JsonObject dict = ProtocolJson.toJson(new IPythonRunCellObservation("1", "print(1)", List.of()));
        assertTrue(dict.getBoolean("success"));
        assertTrue(dict.getJsonObject("extras").isNull("image_urls"));
    }

    @Test
    void shouldSendEveryBrowserOutputObservationField() {
        JsonObject extras = ProtocolJson.toJson(new BrowseObservation("", "", "browse", "", null, true, List.of(), -1,
                "", "", "boom")).getJsonObject("extras");
        assertEquals(Set.of("url", "trigger_by_action", "screenshot", "screenshot_path", "set_of_marks",
                "error", "goal_image_urls", "open_pages_urls", "active_page_index", "dom_object", "axtree_object",
                "extra_element_properties", "last_browser_action", "last_browser_action_error", "focused_element_bid",
                "filter_visible_only"), extras.keySet());
        assertTrue(extras.isNull("screenshot_path"));
        assertEquals(-1, extras.getInt("active_page_index"));
        assertFalse(extras.getBoolean("filter_visible_only"));
    }

    @Test
    void shouldMapThroughJsonb() throws Exception {
        try (Jsonb jsonb = JsonbBuilder.create()) {
            Action action = jsonb.fromJson("{\"action\":\"write\",\"args\":{\"path\":\"/w/f\",\"content\":\"c\"}}",
                    Action.class);
            assertEquals(FileWriteAction.of("/w/f", "c"), action);
            String text = jsonb.toJson(new FileWriteObservation("", "/w/f"), Observation.class);
            assertEquals("write", json(text).getString("observation"));
            Observation back = jsonb.fromJson(text, Observation.class);
            assertEquals(new FileWriteObservation("", "/w/f"), back);
        }
    }

    @Test
    void shouldTruncateTheMiddleOfLongOutput() {
        String output = "a".repeat(20_000) + "b".repeat(20_000);
        String cut = Truncation.middle(output);
        assertTrue(cut.startsWith("a".repeat(15_000)));
        assertTrue(cut.endsWith("b".repeat(15_000)));
        assertTrue(cut.contains("[... Observation truncated due to length ...]"));
        assertEquals("short", Truncation.middle("short"));
    }
}
