package dev.dockyard.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TransportProblemTest {

    @ParameterizedTest
    @ValueSource(ints = {400, 408, 411, 413, 414, 417, 431, 500, 501, 503, 505})
    void shouldWriteAnRfc9457ProblemWhoseStatusIsTheCode(int status) {
        JsonObject problem = parse(TransportProblem.forChannelStatus(status).jsonBytes());
        assertEquals(status, problem.getJsonNumber("status").intValue(), problem.toString());
        assertTrue(problem.getString("type").startsWith("https://dockyard.dev/problems/"), problem.toString());
        assertTrue(!problem.getString("title").isBlank() && !problem.getString("detail").isBlank(), problem.toString());
        assertEquals(4, problem.size(), problem.toString());
    }

    @Test
    void shouldUseTheControlPlanesTypesForWhatItAlsoAnswers() {
        assertEquals("https://dockyard.dev/problems/bad-request", TransportProblem.forChannelStatus(400).type());
        assertEquals("Malformed request", TransportProblem.forChannelStatus(400).title());
        assertEquals("https://dockyard.dev/problems/bad-request", TransportProblem.badPath("x").type());
        assertEquals("https://dockyard.dev/problems/headers-too-large", TransportProblem.forChannelStatus(431).type());
        assertEquals("https://dockyard.dev/problems/http-version-not-supported",
                TransportProblem.forChannelStatus(505).type());
        assertEquals("https://dockyard.dev/problems/bad-request", TransportProblem.forChannelStatus(417).type());
        assertEquals("https://dockyard.dev/problems/internal", TransportProblem.forChannelStatus(502).type());
    }

    @Test
    void shouldQuoteJsonStrings() {
        String detail = "a \"quoted\" back\\slash\nand a tab\t";
        JsonObject problem = parse(TransportProblem.badPath(detail).jsonBytes());
        assertEquals(detail, problem.getString("detail"));
    }

    private static JsonObject parse(byte[] json) {
        try (var reader = Json.createReader(new ByteArrayInputStream(json))) {
            return reader.readObject();
        }
    }
}
