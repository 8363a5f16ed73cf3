package dev.dockyard.application.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.audit.AuditEntries;
import dev.dockyard.audit.AuditEntry;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetentionTest {

    private static final Instant NOW = Instant.parse("2026-11-30T08:00:00Z");

    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final KeptAudit audit = new KeptAudit();

    private Retention retention(int runtimesDays, int eventsDays, int auditDays) {
        History history = new History();
        history.runtimes = runtimes;
        history.audit = audit;
        return new Retention(history, new RetentionSettings(runtimesDays, eventsDays, auditDays),
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private SandboxRuntime runtime(String conversation, Instant created) {
        SandboxRuntime runtime = new SandboxRuntime(conversation, "alice", "docker", "dockyard/sandbox:latest", 1.0,
                512, 60, created);
        runtimes.add(runtime, new StatusChange(runtime.id(), RuntimeStatus.STARTING_RUNTIME, "requested", created));
        return runtime;
    }

    private SandboxRuntime endedAt(String conversation, RuntimeStatus end, Instant at) {
        SandboxRuntime runtime = runtime(conversation, at.minus(Duration.ofHours(1)));
        runtimes.record(runtime.transitionTo(end, "ended", at));
        return runtime;
    }

    @Test
    void shouldForgetRuntimesThatEndedBeforeTheRetentionWithTheirStatusChangesAndKeepTheRest() {
        SandboxRuntime stoppedLongAgo = endedAt("c1", RuntimeStatus.STOPPED, NOW.minus(Duration.ofDays(31)));
        SandboxRuntime failedLongAgo = endedAt("c2", RuntimeStatus.ERROR, NOW.minus(Duration.ofDays(40)));
        SandboxRuntime stoppedLately = endedAt("c3", RuntimeStatus.STOPPED, NOW.minus(Duration.ofDays(29)));
        // live, and created long before the cutoff: a runtime is never forgotten while it lives
        SandboxRuntime live = runtime("c4", NOW.minus(Duration.ofDays(45)));

        Retention.Report report = retention(30, 0, 0).apply();

        assertEquals(2, report.runtimes());
        assertTrue(runtimes.find(stoppedLongAgo.id()).isEmpty());
        assertTrue(runtimes.find(failedLongAgo.id()).isEmpty());
        assertTrue(runtimes.history(stoppedLongAgo.id()).isEmpty(), "its status changes go with it");
        assertTrue(runtimes.find(stoppedLately.id()).isPresent());
        assertEquals(2, runtimes.history(stoppedLately.id()).size());
        assertTrue(runtimes.find(live.id()).isPresent());
        assertEquals(1, runtimes.history(live.id()).size());
    }

    @Test
    void shouldForgetAnyRuntimesOlderStatusChangesButItsNewestAfterTheEventsRetention() {
        SandboxRuntime live = runtime("c1", NOW.minus(Duration.ofDays(45)));
        runtimes.record(live.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started", NOW.minus(Duration.ofDays(45))));
        runtimes.record(live.transitionTo(RuntimeStatus.READY, "ready", NOW.minus(Duration.ofDays(1))));

        // one that has not moved since: its one change is its status, and stays
        SandboxRuntime quiet = runtime("c2", NOW.minus(Duration.ofDays(45)));

        Retention.Report report = retention(0, 30, 0).apply();

        assertEquals(2, report.events());
        assertEquals(List.of(RuntimeStatus.READY),
                runtimes.history(live.id()).stream().map(StatusChange::status).toList());
        assertTrue(runtimes.find(live.id()).isPresent());
        assertEquals(List.of(RuntimeStatus.STARTING_RUNTIME),
                runtimes.history(quiet.id()).stream().map(StatusChange::status).toList());
    }

    @Test
    void shouldForgetAuditEntriesOlderThanTheAuditRetention() {
        audit.store(List.of(entry(NOW.minus(Duration.ofDays(91))), entry(NOW.minus(Duration.ofDays(89)))));

        Retention.Report report = retention(0, 0, 90).apply();

        assertEquals(1, report.auditEntries());
        assertEquals(List.of(NOW.minus(Duration.ofDays(89))), audit.kept.stream().map(AuditEntry::at).toList());
    }

    @Test
    void shouldWorkOffABacklogInBatchesUntilOneComesBackShort() {
        int backlog = History.BATCH * 2 + 7;
        for (int i = 0; i < backlog; i++) {
            endedAt("old-" + i, RuntimeStatus.STOPPED, NOW.minus(Duration.ofDays(60)));
        }

        assertEquals(backlog, retention(30, 0, 0).apply().runtimes());
        assertTrue(runtimes.list(null, null, null).isEmpty());
    }

    @Test
    void shouldKeepEverythingForeverWhenARetentionIsZero() {
        SandboxRuntime stopped = endedAt("c1", RuntimeStatus.STOPPED, NOW.minus(Duration.ofDays(3650)));
        audit.store(List.of(entry(NOW.minus(Duration.ofDays(3650)))));

        assertEquals(new Retention.Report(0, 0, 0), retention(0, 0, 0).apply());
        assertTrue(runtimes.find(stopped.id()).isPresent());
        assertEquals(1, audit.kept.size());
    }

    @Test
    void shouldRefuseANegativeRetention() {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> retention(-1, 0, 0).apply());
        assertTrue(refused.getMessage().contains("dockyard.retention.runtimes-days"), refused.getMessage());
    }

    private static AuditEntry entry(Instant at) {
        return new AuditEntry(at, "alice", "rt-1", "run", "LOW", "", AuditEntry.Decision.ALLOWED, 200, 0, 5, 10);
    }

    /** The audit trail's storage in memory. */
    private static final class KeptAudit implements AuditEntries {

        final List<AuditEntry> kept = new ArrayList<>();

        @Override
        public void store(List<AuditEntry> entries) {
            kept.addAll(entries);
        }

        @Override
        public List<AuditEntry> ofRuntime(String runtimeId, int limit) {
            return kept.stream().filter(e -> e.runtimeId().equals(runtimeId)).limit(limit).toList();
        }

        @Override
        public List<AuditEntry> search(String userId, Instant since, int limit) {
            return kept.stream().limit(limit).toList();
        }

        @Override
        public int removeRecordedBefore(Instant cutoff, int max) {
            List<AuditEntry> old = kept.stream().filter(e -> e.at().isBefore(cutoff)).limit(max).toList();
            kept.removeAll(old);
            return old.size();
        }
    }
}
