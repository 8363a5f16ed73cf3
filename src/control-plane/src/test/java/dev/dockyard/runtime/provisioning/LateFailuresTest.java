package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import java.sql.SQLNonTransientConnectionException;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A provision's failure the database did not take (the soak, 2026-11-30 21:41: PostgreSQL stopped
 * while 11 provisions failed on the control plane that did not hold the reconciler's lease) is
 * recorded once the database answers, by the process that failed it: the reconciler leaves a live
 * process's provisions alone, so they stayed STARTING for minutes.
 */
class LateFailuresTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T21:41:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private boolean databaseDown;
    private final ProvisioningCleanup cleanup = new ProvisioningCleanup();

    LateFailuresTest() {
        cleanup.journal = Journals.over(new ProvisioningJournal() {
            @Override
            public SandboxRuntime transition(String id, RuntimeStatus next, String message) {
                down();
                return super.transition(id, next, message);
            }

            @Override
            public boolean transitionIf(String id, Set<RuntimeStatus> expected, RuntimeStatus next,
                                        String message) {
                down();
                return super.transitionIf(id, expected, next, message);
            }
        }, runtimes, clock, new RuntimeSecrets());
        cleanup.secrets = new RuntimeSecrets();
    }

    private void down() {
        if (databaseDown) {
            throw new IllegalStateException(new SQLNonTransientConnectionException("Connection refused", "08001"));
        }
    }

    private SandboxRuntime starting(String conversation) {
        SandboxRuntime runtime = new SandboxRuntime(conversation, "alice", "fake", "img", 1.0, 512, 60, clock.instant());
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        return runtime;
    }

    @Test
    void shouldRecordAFailureTheDatabaseRefusedOnceItAnswersUnlessTheRuntimeWasStoppedMeanwhile() {
        SandboxRuntime failed = starting("c1");
        SandboxRuntime stopped = starting("c2");
        databaseDown = true;
        assertEquals(RuntimeStatus.ERROR, cleanup.fail(failed.id(), "Provisioning failed at step 'record'"));
        cleanup.fail(stopped.id(), "Provisioning failed at step 'turn'");
        assertEquals(RuntimeStatus.STARTING_RUNTIME, runtimes.find(failed.id()).orElseThrow().status());
        assertEquals(2, cleanup.recordLateFailures(), "the database still refuses: both kept");

        databaseDown = false;
        runtimes.find(stopped.id()).orElseThrow().transitionTo(RuntimeStatus.STOPPED, "deleted", clock.instant());
        assertEquals(0, cleanup.recordLateFailures());
        SandboxRuntime now = runtimes.find(failed.id()).orElseThrow();
        assertEquals(RuntimeStatus.ERROR, now.status());
        assertEquals("Provisioning failed at step 'record'", now.statusMessage());
        assertEquals(RuntimeStatus.STOPPED, runtimes.find(stopped.id()).orElseThrow().status(), "a stop stands");
        assertEquals(0, cleanup.recordLateFailures(), "each recorded once");
    }
}
