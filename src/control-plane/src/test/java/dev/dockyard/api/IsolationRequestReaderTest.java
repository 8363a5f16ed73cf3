package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.SandboxIsolation;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IsolationRequestReaderTest {

    private static final Set<String> ALLOWED = Set.of("team-db", "host");

    private static SandboxIsolation read(String sandbox) {
        try (var reader = Json.createReader(new StringReader(sandbox))) {
            JsonObject json = reader.readObject();
            return IsolationRequestReader.read(json, ALLOWED);
        }
    }

    private static String refusal(String sandbox) {
        Problem problem = assertThrows(Problem.ProblemException.class, () -> read(sandbox)).problem();
        assertEquals(400, problem.kind().status());
        return problem.detail();
    }

    @Test
    void shouldGiveTheNodeDefaultsWhenNothingIsAsked() {
        assertTrue(read("{}").isDefault());
        assertTrue(read("{\"runtimeClass\":null,\"gpus\":null,\"networks\":null}").isDefault());
    }

    @Test
    void shouldReadTheReadOnlyRootAskedForAndLeaveItToTheNodeOtherwise() {
        assertEquals(Boolean.FALSE, read("{\"readOnlyRoot\":false}").readOnlyRoot());
        assertEquals(Boolean.TRUE, read("{\"readOnlyRoot\":true}").readOnlyRoot());
        assertNull(read("{\"readOnlyRoot\":null}").readOnlyRoot());
        assertTrue(read("{}").readOnlyRoot(true));
        assertTrue(!read("{\"readOnlyRoot\":false}").readOnlyRoot(true));
        assertTrue(!read("{\"readOnlyRoot\":false}").isDefault(), "a warm sandbox has the node's root");
    }

    @Test
    void shouldRefuseAReadOnlyRootThatIsNotABoolean() {
        assertTrue(refusal("{\"readOnlyRoot\":\"no\"}").contains("sandbox.readOnlyRoot must be a boolean"));
        assertTrue(refusal("{\"readOnlyRoot\":0}").contains("sandbox.readOnlyRoot must be a boolean"));
    }

    @Test
    void shouldReadAKnownRuntimeClass() {
        assertEquals("gvisor", read("{\"runtimeClass\":\"gvisor\"}").runtimeClass());
        assertEquals("runc", read("{\"runtimeClass\":\"runc\"}").runtimeClass());
    }

    @Test
    void shouldRefuseAnUnknownRuntimeClass() {
        assertTrue(refusal("{\"runtimeClass\":\"kata\"}").contains("sandbox.runtimeClass 'kata' is not one of [runc, gvisor]"));
        assertTrue(refusal("{\"runtimeClass\":7}").contains("sandbox.runtimeClass must be a string"));
    }

    @Test
    void shouldReadGpusAsACountAllOrDeviceIds() {
        assertEquals(2, read("{\"gpus\":2}").gpus().count());
        assertEquals(-1, read("{\"gpus\":\"all\"}").gpus().wanted());
        SandboxIsolation.SandboxGpus ids = read("{\"gpus\":[\"0\",\"GPU-3f2a\",\"0\"]}").gpus();
        assertEquals(List.of("0", "GPU-3f2a"), ids.deviceIds());
        assertEquals(2, ids.wanted());
        assertNull(read("{}").gpus());
    }

    @Test
    void shouldRefuseGpusOfAnotherShape() {
        for (String gpus : List.of("0", "-1", "65", "1.5", "\"some\"", "[]", "[1]", "[\"a b\"]", "{}", "true")) {
            assertTrue(refusal("{\"gpus\":" + gpus + "}").startsWith("sandbox.gpus must be a count"), gpus);
        }
    }

    @Test
    void shouldAttachOnlyNetworksAnAdminAllows() {
        assertEquals(List.of("team-db"), read("{\"networks\":[\"team-db\",\"team-db\"]}").networks());
        assertTrue(refusal("{\"networks\":[\"other\"]}").contains("'other' is not a network an admin allows; "
                + "allowed: [host, team-db]"));
    }

    @Test
    void shouldNeverAttachTheHostNetworkEvenWhenAllowed() {
        for (String never : List.of("host", "none", "container:abc", "default")) {
            assertTrue(refusal("{\"networks\":[\"" + never + "\"]}").contains("is never allowed"), never);
        }
    }

    @Test
    void shouldRefuseNetworksOfAnotherShape() {
        assertTrue(refusal("{\"networks\":\"team-db\"}").contains("must be an array"));
        assertTrue(refusal("{\"networks\":[1]}").contains("must be an array of network names"));
        assertTrue(refusal("{\"networks\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}")
                .contains("at most 8"));
        assertTrue(refusal("{\"networks\":[\"bad\\u0000name\"]}").contains("'bad?name'"));
    }
}
