package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import org.junit.jupiter.api.Test;

class SafeIdsTest {

    @Test
    void shouldTakeTheIdsInUse() {
        for (String id : new String[] {"conv-42", "rt-0f3c9a", "alice@example.org", "it-events-1732", "a", "x:y.z_1",
                "x".repeat(200)}) {
            assertTrue(SafeIds.isSafe(id), id);
        }
    }

    @Test
    void shouldRefuseTraversalControlsBidiAndOversize() {
        for (String id : new String[] {"../etc", "..", "a..b", "a/b", "a\\b", ".hidden", "-flag", "a b", "a\u202Eb",
                "a\u2066b", "a\u200Fb", "a\nb", "a\u0000b", "caf\u00e9", "a\uFFFDb", "\uD800", "", "x".repeat(201)}) {
            assertFalse(SafeIds.isSafe(id), id);
        }
    }

    @Test
    void shouldNameTheFieldWithoutEchoingTheValue() {
        Problem p = assertThrows(Problem.ProblemException.class, () -> SafeIds.require("../\u202Eevil", "poolName"))
                .problem();
        assertEquals(400, p.kind().status());
        assertTrue(p.detail().startsWith("poolName must be an id"), p.detail());
        assertFalse(p.detail().contains("evil"));
    }

    @Test
    void shouldTakeFreeTextButNotBidiOrControls() {
        assertEquals("fork of rt-1 for conv 2", SafeIds.requireText("fork of rt-1 for conv 2", "name", 200));
        assertEquals("café ☕", SafeIds.requireText("café ☕", "name", 200));
        for (String text : new String[] {"a\u202Eb", "a\nb", "\uDC00", " ", "x".repeat(201)}) {
            assertThrows(Problem.ProblemException.class, () -> SafeIds.requireText(text, "name", 200), text);
        }
    }

    @Test
    void shouldRangeCheckQueryParameters() {
        assertEquals(100, QueryParams.intInRange(null, "limit", 100, 1, 1000));
        assertEquals(5, QueryParams.intInRange("5", "limit", 100, 1, 1000));
        for (String raw : new String[] {"-5", "0", "1001", "abc", "99999999999999", "1e3", " 5"}) {
            Problem p = assertThrows(Problem.ProblemException.class,
                    () -> QueryParams.intInRange(raw, "limit", 100, 1, 1000), raw).problem();
            assertEquals("limit must be an integer from 1 to 1000", p.detail());
        }
        assertTrue(QueryParams.bool("true", "keepWorkspace", false));
        assertThrows(Problem.ProblemException.class, () -> QueryParams.bool("yes", "keepWorkspace", false));
    }

    @Test
    void shouldNeverLetAnExtensionReplaceAStandardMember() {
        assertThrows(IllegalArgumentException.class,
                () -> Problem.of(Problem.Kind.RUNTIME_NOT_READY, "x").with("status", Json.createValue("PAUSED")));
    }
}
