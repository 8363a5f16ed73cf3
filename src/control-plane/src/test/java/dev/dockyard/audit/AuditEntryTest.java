package dev.dockyard.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AuditEntryTest {

    @Test
    void shouldNameEntriesInTheOrderOfTheirMomentsWithUuidsOfVersionSeven() {
        Instant at = Instant.parse("2026-11-29T14:00:00.123Z");
        String first = AuditEntry.timeOrderedId(at);
        String later = AuditEntry.timeOrderedId(at.plusMillis(1));

        UUID parsed = UUID.fromString(first);
        assertEquals(7, parsed.version());
        assertEquals(2, parsed.variant());
        assertEquals(at.toEpochMilli(), parsed.getMostSignificantBits() >>> 16, "the moment leads the id");
        assertTrue(first.compareTo(later) < 0, "a later entry sorts after: " + first + " < " + later);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(AuditEntry.timeOrderedId(at));
        }
        assertEquals(10_000, ids.size(), "entries of the same millisecond still differ");
    }
}
