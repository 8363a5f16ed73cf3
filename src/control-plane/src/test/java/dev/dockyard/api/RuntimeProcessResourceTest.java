package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.runtimes.ProcessEvent;
import dev.dockyard.application.runtimes.ProcessRequest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeProcessResourceTest {

    static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    static String refusal(String body) {
        Problem.ProblemException e = assertThrows(Problem.ProblemException.class,
                () -> RuntimeProcessResource.read(body == null ? null : json(body)));
        assertEquals(400, e.problem().kind().status());
        return e.problem().detail();
    }

    @Test
    void shouldReadEveryFieldOfAStart() {
        ProcessRequest r = RuntimeProcessResource.read(json("{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"cat\"],"
                + "\"env\":{\"A\":\"1\"},\"cwd\":\"/tmp\",\"stdin\":true,\"terminal\":{\"cols\":100,\"rows\":30},"
                + "\"tag\":\"svc\",\"timeoutSeconds\":5}"));
        assertTrue(RuntimeProcessResource.read(json("{\"cmd\":\"ls\",\"confirmation_state\":\"confirmed\"}")).confirmed());
        assertEquals(new ProcessRequest("/bin/bash", List.of("-c", "cat"), Map.of("A", "1"), "/tmp", true, 100, 30, "svc",
                Duration.ofSeconds(5), false), r);
        ProcessRequest plain = RuntimeProcessResource.read(json("{\"cmd\":\"ls\"}"));
        assertEquals(List.of(), plain.args());
        assertNull(plain.timeout(), "no limit unless asked");
        assertNull(plain.cwd());
        assertEquals(false, plain.terminal());
    }

    @Test
    void shouldRefuseWhatItCannotRunWithAReason() {
        assertTrue(refusal(null).contains("cmd"));
        assertTrue(refusal("{}").contains("cmd is required"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"argz\":[]}").contains("args"), "the nearest known name");
        assertTrue(refusal("{\"cmd\":\"ls\",\"args\":\"-l\"}").contains("args must be an array of strings"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"args\":[1]}").contains("args must be an array of strings"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"env\":{\"A-B\":\"1\"}}").contains("A-B"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"cwd\":\"tmp\"}").contains("absolute"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"terminal\":{\"cols\":0,\"rows\":24}}").contains("cols"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"terminal\":{\"cols\":80}}").contains("rows"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"timeoutSeconds\":-1}").contains("timeoutSeconds"));
        assertTrue(refusal("{\"cmd\":\"ls\",\"timeoutSeconds\":10000000}").contains("9999999"));
    }

    @Test
    void shouldWriteEachEventAsOneServerSentEvent() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RuntimeProcessResource.write(out, new ProcessEvent("start", json("{\"pid\":7}")));
        RuntimeProcessResource.write(out, new ProcessEvent("keepalive", JsonValue.EMPTY_JSON_OBJECT));
        RuntimeProcessResource.write(out, new ProcessEvent("end", json("{\"exitCode\":0}")));
        assertEquals("event: start\ndata: {\"pid\":7}\n\n: keepalive\n\nevent: end\ndata: {\"exitCode\":0}\n\n",
                out.toString(StandardCharsets.UTF_8));
    }
}
