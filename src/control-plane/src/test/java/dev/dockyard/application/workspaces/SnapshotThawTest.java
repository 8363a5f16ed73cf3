package dev.dockyard.application.workspaces;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.SnapshotCapture;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.Lifecycles;
import dev.dockyard.runtime.reconciliation.CaptureLeftovers;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.UserAccount;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A snapshot freezes its runtime's sandbox; one whose thaw the engine did not take (node2 cut off
 * during a fork, the soak of 2026-11-30 23:25) left the runtime READY and frozen, and an action
 * timed out on it. It is recorded PAUSED at once, as an idle pause leaves it: the next action
 * resumes it.
 */
class SnapshotThawTest {

    private final Lifecycles l = new Lifecycles();
    private final Snapshots snapshots = new Snapshots();

    @Test
    void shouldRecordARuntimeWhoseSandboxCouldNotBeThawedAfterItsCaptureAsAsleep() {
        SandboxRuntime runtime = l.ready(false, 0, 0);
        wire();
        l.backend.unpauseFailing(new EngineUnreachableException("the Docker engine of node 'local' does not answer",
                null));

        RuntimeException thrown = assertThrows(RuntimeException.class,
                () -> snapshots.capture(l.find(runtime.id()), "before the cut"));

        SandboxRuntime now = l.find(runtime.id());
        assertEquals(RuntimeStatus.PAUSED, now.status(), now.statusMessage() + "; " + thrown);
        assertEquals(PauseReason.IDLE, now.pauseReason(), "asleep: the next action resumes it");
        assertTrue(now.statusMessage().startsWith("Frozen for a snapshot and not thawed"), now.statusMessage());
    }

    /** The freeze itself carried out with its answer lost: as above, and nothing captured. */
    @Test
    void shouldRecordARuntimeAsleepWhenItsSnapshotsFreezeGotNoAnswer() {
        SandboxRuntime runtime = l.ready(false, 0, 0);
        wire();
        l.backend.pauseAnswerLost(new EngineUnreachableException("the Docker engine of node 'local' does not answer",
                null));

        Refused refused = assertThrows(Refused.class, () -> snapshots.capture(l.find(runtime.id()), "at the cut"));

        assertEquals(Refused.Reason.NODE_UNAVAILABLE, refused.reason(), refused.getMessage());
        assertEquals(EngineUnreachableException.RETRY_AFTER_SECONDS, refused.retryAfterSeconds());
        SandboxRuntime now = l.find(runtime.id());
        assertEquals(RuntimeStatus.PAUSED, now.status(), now.statusMessage());
        assertEquals(PauseReason.IDLE, now.pauseReason(), "asleep: the next action resumes it");
        assertTrue(now.statusMessage().startsWith("Frozen for a snapshot with no answer from the engine"),
                now.statusMessage());
        assertTrue(l.backend.calls().stream().noneMatch(c -> c.startsWith("capture ")), "nothing captured");
    }

    /**
     * The soak's node cut (2026-12-01 02:12): a capture cut off by its engine's silence could not
     * remove its parts either, and they outlived the run by up to the sweep's 15 minutes. This
     * process notes them and removes them itself once the engine answers.
     */
    @Test
    void shouldRemoveWhatACaptureCutOffByItsEnginesSilenceLeftOnceTheEngineAnswers() {
        SandboxRuntime runtime = l.ready(false, 0, 0);
        wire();
        CaptureLeftovers leftovers = CaptureLeftovers.on(l.nodes, snapshots.config, l.clock);
        snapshots.leftovers = leftovers;
        l.backend.captureFailing(new EngineUnreachableException("the Docker engine of node 'local' does not answer",
                null));

        assertThrows(Refused.class, () -> snapshots.capture(l.find(runtime.id()), "at the cut"));
        assertEquals(1, l.backend.leftCaptures().size(), "its parts are there");

        l.backend.unanswering(true);
        assertEquals(1, leftovers.removeAll(), "still silent: kept for the next tick");
        assertEquals(1, l.backend.leftCaptures().size());

        l.backend.unanswering(false);
        leftovers.removeAll();
        assertTrue(l.backend.leftCaptures().isEmpty(), "removed once the engine answered");
        l.clock.advance(Duration.ofMinutes(3));
        assertEquals(0, leftovers.removeAll(), "forgotten once a look, after a commit could have ended, finds nothing");
        assertEquals(RuntimeStatus.READY, l.find(runtime.id()).status(), "thawed, and READY as before");
    }

    private void wire() {
        snapshots.records = new WorkspaceRecords() {
            @Override
            public List<Snapshot> snapshots(String userId) {
                return List.of();
            }
        };
        snapshots.accounts = new Accounts() {
            @Override
            public Optional<UserAccount> find(String userId) {
                return Optional.empty();
            }
        };
        snapshots.runtimes = l.runtimes;
        snapshots.gates = l.gates;
        snapshots.nodes = l.nodes;
        snapshots.config = new TestConfig() {
            @Override
            public int quotaMaxSnapshots() {
                return 5;
            }

            @Override
            public int quotaMaxSnapshotMb() {
                return 100;
            }
        };
        snapshots.clock = l.clock;
        snapshots.journal = l.journal;
        snapshots.leases = new Leases(new FakeLeaseStore(), l.clock, ControlPlaneInstance.of("cp1", Duration.ofSeconds(30)));
        l.backend.captureAs(new SnapshotCapture("dockyard/snapshot:x", "dockyard-snapshot-x", 1, 0));
    }
}
