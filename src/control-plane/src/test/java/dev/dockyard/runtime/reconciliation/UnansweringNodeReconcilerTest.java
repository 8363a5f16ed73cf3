package dev.dockyard.runtime.reconciliation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.NoPools;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.placement.Placements;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.Journals;
import dev.dockyard.runtime.provisioning.Provisioner;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that cannot be listed (a remote control plane that is down): nothing is removed or failed
 * on the incomplete view, but a backend that asks for it disconnects its serving runtimes after its
 * grace, and they are READY again once it answers with their sandboxes there. A backend that does
 * not ask (Docker) leaves them as they are.
 */
class UnansweringNodeReconcilerTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final FakeNodes nodes = new FakeNodes("local", "remote1");
    private final FakeBackend remote = nodes.backend("remote1");
    private final TestConfig config = new TestConfig();
    private final Reconciler reconciler = new Reconciler();

    @BeforeEach
    void wire() {
        reconciler.nodes = nodes;
        reconciler.pools = NoPools.keeper();
        reconciler.journal = Journals.over(runtimes, clock, new RuntimeSecrets());
        reconciler.config = config;
        reconciler.clock = clock;
        reconciler.health = Placements.health(reconciler.nodes, clock);
        reconciler.gates = new RuntimeGates();
        reconciler.leases = new Leases(new FakeLeaseStore(), clock, ControlPlaneInstance.of("test", Duration.ofSeconds(30)));
        reconciler.secrets = new RuntimeSecrets();
        reconciler.provisioner = new Provisioner() {
            @Override
            public boolean isInFlight(String runtimeId) {
                return false;
            }
        };
        reconciler.executors = new ExecutorClient() {
            @Override
            public boolean isReady(URI executor, String sessionKey) {
                return true;
            }
        };
    }

    private SandboxRuntime onRemote(RuntimeStatus... path) {
        SandboxRuntime runtime = new SandboxRuntime("conv-" + runtimes.live().size(), "alice", "remote", "img", 1.0,
                512, 60, clock.instant());
        runtime.assignNode("remote1");
        runtime.ownedBy(config.instance);
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        for (RuntimeStatus next : path) {
            runtimes.record(runtime.transitionTo(next, "test", clock.instant()));
        }
        runtime.reachableAt("http://127.0.0.1:1/" + runtime.id());
        remote.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);
        return runtime;
    }

    private RuntimeStatus statusOf(SandboxRuntime runtime) {
        return runtimes.find(runtime.id()).orElseThrow().status();
    }

    @Test
    void shouldDisconnectServingRuntimesOnlyAfterTheNodesGraceAndReconnectThemWhenItAnswers() {
        remote.disconnectAfter(Duration.ofSeconds(5));
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        SandboxRuntime paused = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        remote.pause(paused.containerName());
        remote.unlistable();

        Reconciler.Report first = reconciler.pass();
        assertTrue(first.skipped());
        assertEquals(0, first.disconnected());
        clock.advance(Duration.ofSeconds(4));
        assertEquals(0, reconciler.pass().disconnected());
        assertEquals(RuntimeStatus.READY, statusOf(ready));

        clock.advance(Duration.ofSeconds(2));
        assertEquals(2, reconciler.pass().disconnected());
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(ready));
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(paused));
        assertTrue(runtimes.find(ready.id()).orElseThrow().statusMessage().contains("remote1"));
        assertTrue(remote.calls().stream().noneMatch(c -> c.startsWith("remove")), remote.calls().toString());

        remote.listableAgain();
        assertEquals(2, reconciler.pass().reconnected());
        assertEquals(RuntimeStatus.READY, statusOf(ready));
        assertEquals(RuntimeStatus.PAUSED, statusOf(paused));
    }

    @Test
    void shouldSpendNoListOnANodeItsHealthProbeFoundDownYetDisconnectAfterTheGraceAndReconnectWhenItIsBack() {
        remote.disconnectAfter(Duration.ofSeconds(5));
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        remote.unlistable();
        remote.pingFails(new BackendException("connection refused", null));
        reconciler.health.probe("remote1");

        assertTrue(reconciler.pass().skipped());
        clock.advance(Duration.ofSeconds(6));
        assertEquals(1, reconciler.pass().disconnected());
        assertEquals(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, statusOf(ready));
        assertTrue(remote.calls().stream().noneMatch(c -> c.startsWith("list")), "a known-down node is not listed: "
                + remote.calls());

        remote.listableAgain();
        remote.pingFails(null);
        assertEquals(0, reconciler.pass().reconnected(), "until its next health probe it counts as down");
        reconciler.health.probe("remote1");
        assertEquals(1, reconciler.pass().reconnected());
        assertEquals(RuntimeStatus.READY, statusOf(ready));
    }

    @Test
    void shouldStillListANodeOfThisHostWhoseProbeFailed() {
        FakeBackend local = nodes.backend("local");
        local.type = "local";
        local.pingFails(new BackendException("the sandbox user cannot read the bundle", null));
        reconciler.health.probe("local");
        reconciler.pass();
        assertTrue(local.calls().contains("list"), "a node without disconnect-after is reconciled: " + local.calls());
    }

    @Test
    void shouldStartTheGraceAnewAfterTheNodeAnsweredOnce() {
        remote.disconnectAfter(Duration.ofSeconds(5));
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        remote.unlistable();
        reconciler.pass();
        clock.advance(Duration.ofSeconds(4));
        remote.listableAgain();
        reconciler.pass();
        remote.unlistable();
        clock.advance(Duration.ofSeconds(4));

        assertEquals(0, reconciler.pass().disconnected());
        assertEquals(RuntimeStatus.READY, statusOf(ready));
    }

    @Test
    void shouldLeaveRuntimesOfABackendThatDoesNotAskAsTheyAre() {
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        remote.unlistable();
        reconciler.pass();
        clock.advance(Duration.ofMinutes(10));

        assertEquals(0, reconciler.pass().disconnected());
        assertEquals(RuntimeStatus.READY, statusOf(ready));
    }

    @Test
    void shouldCountTheOutageFromTheFirstCallTheNodeLeftUnanswered() {
        remote.disconnectAfter(Duration.ofSeconds(5));
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        // its health probe found it silent 4 s before the reconciler's first pass could not list it
        remote.unansweredSince(clock.instant().minusSeconds(4));
        remote.unlistable();

        assertEquals(0, reconciler.pass().disconnected());
        clock.advance(Duration.ofSeconds(2));

        assertEquals(1, reconciler.pass().disconnected(), "6 s since its first unanswered call");
        assertTrue(runtimes.find(ready.id()).orElseThrow().statusMessage().contains("has not answered for 6 s"),
                runtimes.find(ready.id()).orElseThrow().statusMessage());
    }

    @Test
    void shouldBringARuntimeItsNodePausedDuringTheOutageBackAsleepAndOneItsUserPausedAsPaused() {
        remote.disconnectAfter(Duration.ofSeconds(5));
        remote.pausingOnItsOwn();
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        SandboxRuntime userPaused = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        userPaused.pausedFor(PauseReason.REQUEST);
        remote.pause(userPaused.containerName());
        remote.unlistable();
        reconciler.pass();
        clock.advance(Duration.ofSeconds(6));
        assertEquals(2, reconciler.pass().disconnected());

        // meanwhile its node paused the READY one (its idle lifecycle, an admin there)
        remote.pause(ready.containerName());
        remote.listableAgain();
        assertEquals(2, reconciler.pass().reconnected());

        SandboxRuntime asleep = runtimes.find(ready.id()).orElseThrow();
        assertEquals(RuntimeStatus.PAUSED, asleep.status());
        assertTrue(asleep.pauseReason().wokenByAction(), "the next action resumes it");
        assertTrue(asleep.statusMessage().contains("paused by its node"), asleep.statusMessage());
        SandboxRuntime paused = runtimes.find(userPaused.id()).orElseThrow();
        assertEquals(RuntimeStatus.PAUSED, paused.status());
        assertFalse(paused.pauseReason().wokenByAction(), "its user paused it: actions are refused until resumed");
    }

    @Test
    void shouldBringAFrozenSandboxBackPausedOnANodeThatPausesNothingOnItsOwn() {
        remote.disconnectAfter(Duration.ofSeconds(5));
        SandboxRuntime ready = onRemote(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        remote.unlistable();
        reconciler.pass();
        clock.advance(Duration.ofSeconds(6));
        reconciler.pass();
        remote.pause(ready.containerName());
        remote.listableAgain();

        assertEquals(1, reconciler.pass().reconnected());
        assertEquals("Reconnected: the sandbox is there again, frozen",
                runtimes.find(ready.id()).orElseThrow().statusMessage());
    }
}
