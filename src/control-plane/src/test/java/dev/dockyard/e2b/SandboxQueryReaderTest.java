package dev.dockyard.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.api.Problem;
import dev.dockyard.application.e2b.PageToken;
import dev.dockyard.application.e2b.SandboxQuery;
import dev.dockyard.application.e2b.SandboxState;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The sandbox lists' query as E2B's SDKs send it (reference §2.2, probed on the wire). */
class SandboxQueryReaderTest {

    /** What JAX-RS hands the resource: the query parameter decoded once. */
    private static String asJaxRsDecodes(String onTheWire) {
        return URLDecoder.decode(onTheWire, StandardCharsets.UTF_8);
    }

    private static String refused(Runnable read) {
        Problem.ProblemException e = assertThrows(Problem.ProblemException.class, read::run);
        assertEquals(Problem.Kind.VALIDATION, e.problem().kind());
        return e.problem().detail();
    }

    @Test
    void shouldDecodeTheTripleEncodedMetadataFilterOfTheSdk() {
        // query.metadata = {'k y': 'v&w'} is sent as metadata=k%252520y%3Dv%252526w
        assertEquals(Map.of("k y", "v&w"), SandboxQueryReader.metadata(asJaxRsDecodes("k%252520y%3Dv%252526w")));
        // two pairs: URLSearchParams joins them with &, encoded once more as the parameter
        assertEquals(Map.of("a", "1", "b=c", "2"),
                SandboxQueryReader.metadata(asJaxRsDecodes("a%3D1%26b%25253Dc%3D2")));
        assertEquals(Map.of(), SandboxQueryReader.metadata(null));
        assertEquals(Map.of(), SandboxQueryReader.metadata(""));
    }

    @Test
    void shouldRefuseMetadataThatIsNotPairs() {
        assertTrue(refused(() -> SandboxQueryReader.metadata("novalue")).startsWith("metadata must be key=value"));
        assertTrue(refused(() -> SandboxQueryReader.metadata("k=%zz")).startsWith("metadata is not percent-encoded"));
    }

    @Test
    void shouldReadStatesAsTheSdkJoinsThemAndRepeated() {
        assertEquals(Set.of(SandboxState.RUNNING, SandboxState.PAUSED),
                SandboxQueryReader.states(List.of("running,paused")));
        assertEquals(Set.of(SandboxState.PAUSED), SandboxQueryReader.states(List.of("paused", "paused")));
        assertEquals(Set.of(), SandboxQueryReader.states(null));
        assertEquals("state must be running or paused, not 'killed'",
                refused(() -> SandboxQueryReader.states(List.of("running,killed"))));
    }

    @Test
    void shouldTakeE2bsDefaultsAndBoundsForTheRest() {
        SandboxQuery query = SandboxQueryReader.read(null, List.of(), null, null, null, null, null);
        assertEquals(100, query.limit());
        assertEquals(false, query.ascending(), "newest first");
        assertNull(query.after());
        assertNull(query.template());

        PageToken mark = new PageToken(Instant.parse("2026-01-01T00:00:00Z"), "rt-0123456789abcdef");
        SandboxQuery next = SandboxQueryReader.read("", List.of("running"), "base", "2026-01-01T00:00:00+01:00",
                "asc", "1", mark.encode());
        assertEquals(1, next.limit());
        assertTrue(next.ascending());
        assertEquals(mark, next.after());
        assertEquals("base", next.template());
        assertEquals(Instant.parse("2025-12-31T23:00:00Z"), next.startedAfter());

        for (String limit : List.of("0", "101", "x", "-1")) {
            assertEquals("limit must be an integer from 1 to 100",
                    refused(() -> SandboxQueryReader.read(null, List.of(), null, null, null, limit, null)));
        }
        assertEquals("order must be asc or desc",
                refused(() -> SandboxQueryReader.read(null, List.of(), null, null, "up", null, null)));
        assertTrue(refused(() -> SandboxQueryReader.read(null, List.of(), null, "yesterday", null, null, null))
                .startsWith("startedAfter must be an RFC 3339 time"));
        assertEquals("nextToken is not a token this list handed out",
                refused(() -> SandboxQueryReader.read(null, List.of(), null, null, null, null, "bogus")));
    }
}
