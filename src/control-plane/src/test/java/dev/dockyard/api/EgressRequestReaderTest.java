package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.EgressPolicy.Destination;
import dev.dockyard.backend.EgressPolicy.Mode;
import dev.dockyard.config.DockyardConfig;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EgressRequestReaderTest {

    private String defaultMode = "open";
    private List<String> allowedModes = List.of("none", "internal", "allowlist", "open");
    private List<String> internalServices = List.of("10.9.8.7:5432", "registry.internal:443");
    private final List<String> lookedUp = new ArrayList<>();

    private final DockyardConfig config = new DockyardConfig() {
        @Override public String sandboxNetwork() { return defaultMode; }
        @Override public List<String> sandboxNetworkModes() { return allowedModes; }
        @Override public List<String> internalServices() { return internalServices; }
        @Override public int maxEgressDestinations() { return 4; }
    };

    /** A resolver of its own: no test sends a DNS query. */
    private final EgressRequestReader.Resolver resolver = host -> {
        lookedUp.add(host);
        Map<String, List<String>> names = Map.of(
                "pypi.org", List.of("151.101.0.223", "151.101.64.223"),
                "registry.internal", List.of("10.9.8.6"),
                "v6only.example", List.of(),
                "db.localhost", List.of("127.0.0.1"));
        List<String> addresses = names.get(host);
        if (addresses == null) {
            throw new UnknownHostException(host);
        }
        return addresses;
    };

    private EgressPolicy read(String sandbox) {
        try (var reader = Json.createReader(new StringReader(sandbox))) {
            JsonObject json = reader.readObject();
            return EgressRequestReader.read(json, config, resolver);
        }
    }

    private Problem problem(String sandbox) {
        return assertThrows(Problem.ProblemException.class, () -> read(sandbox)).problem();
    }

    @Test
    void shouldTakeTheConfiguredModeWhenNoneIsNamed() {
        assertEquals(EgressPolicy.OPEN, read("{}"));
        defaultMode = "none";
        assertEquals(new EgressPolicy(Mode.NONE, List.of()), read("{}"));
        assertEquals(EgressPolicy.OPEN, read("{\"network\":\"open\"}"));
    }

    @Test
    void shouldResolveAnAllowlistOnceWhenTheRuntimeIsAskedFor() {
        EgressPolicy policy = read("{\"network\":\"allowlist\",\"egress\":[\"pypi.org:443\",\"10.1.2.3:5432\"]}");
        assertEquals(Mode.ALLOWLIST, policy.mode());
        assertEquals(List.of(new Destination("151.101.0.223", 443), new Destination("151.101.64.223", 443),
                new Destination("10.1.2.3", 5432)), policy.allowed());
        assertEquals(List.of("pypi.org"), lookedUp, "an address literal is not looked up");
    }

    @Test
    void shouldGiveTheInternalModeTheAdminsServicesOnly() {
        EgressPolicy policy = read("{\"network\":\"internal\"}");
        assertEquals(List.of(new Destination("10.9.8.7", 5432), new Destination("10.9.8.6", 443)), policy.allowed());
        assertTrue(problem("{\"network\":\"internal\",\"egress\":[\"10.0.0.1:22\"]}").detail()
                .contains("internal-services"));
    }

    @Test
    void shouldRefuseMalformedAllowlists() {
        assertTrue(problem("{\"network\":\"allowlist\"}").detail().contains("needs sandbox.egress"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":\"pypi.org:443\"}").detail()
                .contains("sandbox.egress must be an array"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[443]}").detail()
                .contains("sandbox.egress must be an array"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"pypi.org\"]}").detail().contains("host:port"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"[::1]:443\"]}").detail().contains("IPv6"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"a b:443\"]}").detail().contains("host:port"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"pypi.org:0\"]}").detail().contains("port"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"pypi.org:70000\"]}").detail().contains("port"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"10.0.0.300:80\"]}").detail()
                .contains("not an IPv4 address"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"nowhere.invalid:80\"]}").detail()
                .contains("does not resolve"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"v6only.example:80\"]}").detail()
                .contains("no IPv4 address"));
        // the loopback, named or resolved: the sandbox's own, never the host's
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"127.0.0.1:5432\"]}").detail()
                .contains("'127.0.0.1:5432' is a loopback address (127.0.0.1)"));
        assertTrue(problem("{\"network\":\"allowlist\",\"egress\":[\"db.localhost:5432\"]}").detail()
                .contains("'db.localhost:5432' is a loopback address (127.0.0.1)"));
    }

    @Test
    void shouldBoundTheAllowlist() {
        Problem p = problem("{\"network\":\"allowlist\",\"egress\":[\"10.0.0.1:1\",\"10.0.0.1:2\",\"10.0.0.1:3\","
                + "\"10.0.0.1:4\",\"10.0.0.1:5\"]}");
        assertEquals(Problem.Kind.VALIDATION, p.kind());
        assertTrue(p.detail().contains("at most 4"), p.detail());
    }

    @Test
    void shouldRefuseDestinationsOnModesThatTakeNone() {
        assertTrue(problem("{\"network\":\"none\",\"egress\":[\"10.0.0.1:80\"]}").detail()
                .contains("allowlist only"));
        assertTrue(problem("{\"network\":\"open\",\"egress\":[\"10.0.0.1:80\"]}").detail()
                .contains("allowlist only"));
    }

    @Test
    void shouldRefuseUnknownModes() {
        assertTrue(problem("{\"network\":\"host\"}").detail().contains("one of none, internal, allowlist, open"));
        assertTrue(problem("{\"network\":5}").detail().contains("sandbox.network must be a string"));
    }

    @Test
    void shouldRefuseAModeTheAdminDoesNotAllow() {
        allowedModes = List.of("none", "allowlist");
        Problem p = problem("{\"network\":\"open\"}");
        assertEquals(Problem.Kind.FORBIDDEN, p.kind());
        assertTrue(p.detail().contains("allowed: [none, allowlist]"), p.detail());
    }
}
