package dev.dockyard.application.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.executor.envd.ConnectWire;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessEventTest {

    static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    static ProcessEvent message(String json) {
        return ProcessEvent.of(new ConnectWire.Envelope(false, json(json)));
    }

    @Test
    void shouldNameEnvdsProcessEventsAsTheApiStreamsThem() {
        assertEquals(new ProcessEvent("start", json("{\"pid\":42}")), message("{\"event\":{\"start\":{\"pid\":42}}}"));
        assertEquals(new ProcessEvent("stdout", json("{\"data\":\"aGkK\"}")),
                message("{\"event\":{\"data\":{\"stdout\":\"aGkK\"}}}"));
        assertEquals("stderr", message("{\"event\":{\"data\":{\"stderr\":\"ZQ==\"}}}").name());
        assertEquals("terminal", message("{\"event\":{\"data\":{\"pty\":\"ZQ==\"}}}").name());
        assertEquals("keepalive", message("{\"event\":{\"keepalive\":{}}}").name());
        ProcessEvent end = message("{\"event\":{\"end\":{\"exitCode\":-1,\"status\":\"signal: killed\",\"error\":\"signal: killed\"}}}");
        assertEquals(json("{\"exitCode\":-1,\"exited\":false,\"status\":\"signal: killed\",\"error\":\"signal: killed\"}"),
                end.data());
        assertTrue(end.last());
        // an exit code of 0 is left out by protobuf's JSON
        assertEquals(0, message("{\"event\":{\"end\":{\"exited\":true,\"status\":\"exit status 0\"}}}").data().getInt("exitCode"));
        assertFalse(message("{\"event\":{\"start\":{\"pid\":1}}}").last());
    }

    @Test
    void shouldEndWithAnErrorWhereTheStreamEndsWithoutTheProcessesEnd() {
        ProcessEvent refused = ProcessEvent.of(new ConnectWire.Envelope(true,
                json("{\"error\":{\"code\":\"invalid_argument\",\"message\":\"cwd '/x' does not exist\"}}")));
        assertEquals(new ProcessEvent("error", json("{\"code\":\"invalid_argument\",\"message\":\"cwd '/x' does not exist\"}")),
                refused);
        assertEquals("deadline_exceeded", ProcessEvent.of(new ConnectWire.Envelope(true, json("{}"))).data().getString("code"));
        assertTrue(ProcessEvent.CUT_SHORT.last());
    }

    @Test
    void shouldReadEnvelopesAsTheExecutorWritesThem() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.write(ConnectWire.request(json("{\"event\":{\"start\":{\"pid\":7}}}")));
        byte[] end = ConnectWire.request(json("{}"));
        end[0] = 0x02;
        wire.write(end);
        ByteArrayInputStream in = new ByteArrayInputStream(wire.toByteArray());
        assertEquals("start", ProcessEvent.of(ConnectWire.next(in).orElseThrow()).name());
        assertTrue(ConnectWire.next(in).orElseThrow().end());
        assertTrue(ConnectWire.next(in).isEmpty(), "the body ended");
        assertTrue(assertThrowsIo(new byte[] {0, 0, 0}), "a cut envelope head is malformed");
    }

    private static boolean assertThrowsIo(byte[] bytes) {
        try {
            ConnectWire.next(new ByteArrayInputStream(bytes));
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void shouldMapEnvdsRefusalsToDockyardsProblems() {
        assertEquals(Refused.Reason.NOT_FOUND, SandboxProcesses.refused("not_found", "no process 9").reason());
        assertEquals(Refused.Reason.VALIDATION, SandboxProcesses.refused("invalid_argument", "cwd").reason());
        assertEquals(Refused.Reason.CONFLICT, SandboxProcesses.refused("already_exists", "x").reason());
        assertEquals(Refused.Reason.EXECUTOR_FAILED, SandboxProcesses.refused("internal", "stdin not enabled").reason());
    }

    @Test
    void shouldAskEnvdForWhatTheRequestSays() {
        JsonObject start = new ProcessRequest("/bin/bash", List.of("-c", "cat"), Map.of("A", "1"), "/tmp", true, 80, 24,
                "svc", Duration.ofSeconds(5), false).toEnvd();
        assertEquals(json("{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"cat\"],\"envs\":{\"A\":\"1\"},"
                + "\"cwd\":\"/tmp\"},\"stdin\":true,\"pty\":{\"size\":{\"cols\":80,\"rows\":24}},\"tag\":\"svc\"}"), start);
        JsonObject plain = new ProcessRequest("ls", List.of(), Map.of(), null, false, 0, 0, null, null, false).toEnvd();
        assertEquals(json("{\"process\":{\"cmd\":\"ls\",\"args\":[],\"envs\":{}},\"stdin\":false}"), plain);
    }
}
