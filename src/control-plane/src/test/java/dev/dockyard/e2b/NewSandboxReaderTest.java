package dev.dockyard.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.api.Problem;
import dev.dockyard.application.e2b.NewSandbox;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** E2B's create bodies as its SDKs send them, and every option Dockyard cannot honour refused by name. */
class NewSandboxReaderTest {

    private static JsonObject json(String text) {
        return Jsonp.createReader(new StringReader(text)).readObject();
    }

    private static NewSandbox read(String text) {
        return NewSandboxReader.read(json(text));
    }

    private static String refused(String text) {
        Problem.ProblemException e = assertThrows(Problem.ProblemException.class, () -> read(text), text);
        assertEquals(Problem.Kind.VALIDATION, e.problem().kind(), text);
        return e.problem().detail();
    }

    @Test
    void shouldReadTheBodyOfTheJsSdk251() {
        NewSandbox sandbox = read("{\"templateID\":\"base\",\"metadata\":{\"k y\":\"v&w\"},\"envVars\":{\"E\":\"1\"},"
                + "\"timeout\":120,\"autoPause\":true}");
        assertEquals("base", sandbox.template());
        assertEquals(120, sandbox.timeoutSeconds());
        assertEquals(Map.of("k y", "v&w"), sandbox.metadata());
        assertEquals(Map.of("E", "1"), sandbox.environment());
        assertNull(sandbox.egress(), "Dockyard's default: open");
        assertTrue(sandbox.pauseAtEnd());
    }

    @Test
    void shouldTakeE2bsDefaultsForWhatIsNotSent() {
        NewSandbox sandbox = read("{}");
        assertEquals("base", sandbox.template());
        assertEquals(300, sandbox.timeoutSeconds(), "E2B's server default");
        assertEquals(Map.of(), sandbox.metadata());
        assertEquals(false, sandbox.pauseAtEnd());
        assertEquals(read("{}"), NewSandboxReader.read(null), "no body at all: the same");
    }

    @Test
    void shouldReadTheBodyOfOlderSdksWithSecureAndTheirDefaults() {
        NewSandbox sandbox = read("{\"templateID\":\"base\",\"timeout\":300,\"secure\":true,"
                + "\"allow_internet_access\":true,\"autoPauseMemory\":true,\"autoResume\":{\"enabled\":false},"
                + "\"network\":{\"allowPublicTraffic\":true},\"mcp\":null,\"volumeMounts\":[]}");
        assertEquals(300, sandbox.timeoutSeconds());
        assertNull(sandbox.egress());
        read("{\"secure\":false}");
    }

    @Test
    void shouldDenyAllTrafficWhenInternetIsNotAllowedOrAllTrafficIsDenied() {
        assertEquals(EgressPolicy.Mode.NONE, read("{\"allow_internet_access\":false}").egress().mode());
        assertEquals(EgressPolicy.Mode.NONE, read("{\"network\":{\"denyOut\":[\"0.0.0.0/0\"]}}").egress().mode());
    }

    @Test
    void shouldRefuseATimeoutThatIsNotAPositiveInteger() {
        assertEquals("Timeout must be greater than 0", refused("{\"timeout\":0}"));
        assertEquals("Timeout must be greater than 0", refused("{\"timeout\":-5}"));
        assertEquals("timeout must be an integer", refused("{\"timeout\":\"300\"}"));
        assertEquals("timeout must be an integer", refused("{\"timeout\":1.5}"));
    }

    @Test
    void shouldRefuseMetadataAndEnvironmentThatAreNotObjectsOfStrings() {
        assertEquals("metadata.k must be a string", refused("{\"metadata\":{\"k\":1}}"));
        assertEquals("metadata must be an object", refused("{\"metadata\":[]}"));
        assertEquals("envVars.E must be a string", refused("{\"envVars\":{\"E\":true}}"));
        assertEquals("envVars name '1X' is not a valid variable name", refused("{\"envVars\":{\"1X\":\"v\"}}"));
        assertTrue(refused("{\"metadata\":{\"k\":\"" + "x".repeat(9000) + "\"}}")
                .startsWith("metadata must be at most 8000 bytes"));
        assertEquals("templateID must be a string", refused("{\"templateID\":1}"));
        assertEquals("templateID must be 1 to 300 characters", refused("{\"templateID\":\" \"}"));
    }

    @Test
    void shouldRefuseEveryOptionDockyardCannotHonourByName() {
        assertTrue(refused("{\"mcp\":{\"x\":{}}}").startsWith("mcp is not served"));
        assertTrue(refused("{\"volumeMounts\":[{\"name\":\"v\",\"path\":\"/v\"}]}").startsWith("volumeMounts"));
        assertTrue(refused("{\"iam\":{\"tokens\":{\"t\":{}}}}").startsWith("iam is not served"));
        assertTrue(refused("{\"autoPauseMemory\":false}").startsWith("autoPauseMemory false"));
        assertTrue(refused("{\"autoResume\":{\"enabled\":true}}").startsWith("autoResume is not served"));
        assertTrue(refused("{\"network\":{\"egressProxy\":{\"address\":\"x:1\"}}}")
                .startsWith("network.egressProxy is not served"));
        assertTrue(refused("{\"network\":{\"rules\":{\"a\":[]}}}").startsWith("network.rules is not served"));
        assertTrue(refused("{\"network\":{\"allowOut\":[\"10.0.0.0/8\"]}}").startsWith("network.allowOut is not"));
        assertTrue(refused("{\"network\":{\"denyOut\":[\"1.2.3.4\"]}}").startsWith("network.denyOut is served only"));
        assertTrue(refused("{\"network\":{\"allowPublicTraffic\":false}}").startsWith("network.allowPublicTraffic"));
        assertTrue(refused("{\"network\":{\"bogus\":1}}").startsWith("Unknown field network.bogus"));
        assertTrue(refused("{\"templateId\":\"base\"}").contains("did you mean templateID?"));
    }
}
