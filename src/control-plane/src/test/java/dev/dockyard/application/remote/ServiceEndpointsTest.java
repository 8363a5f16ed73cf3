package dev.dockyard.application.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.RecordedEvents;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.reconciliation.SandboxUnanswered;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The proxy's view of a runtime when its node's engine does not answer as it should. */
class ServiceEndpointsTest {

    private final FakeRuntimes rows = new FakeRuntimes();
    private final Engine engine = new Engine();
    private final ServiceEndpoints endpoints = new ServiceEndpoints();
    private final RecordedEvents<SandboxUnanswered> passesAsked = new RecordedEvents<>();

    ServiceEndpointsTest() {
        endpoints.runtimes = rows;
        endpoints.nodes = new FakeNodes("local") {
            @Override
            public RuntimeBackend on(String node) {
                return engine;
            }
        };
        endpoints.outages = passesAsked;
        endpoints.nanoClock = () -> now;
    }

    private long now = 1_000_000_000L;

    /** A node whose engine may fail its answers in the ways a real one does, not only by refusing. */
    private static final class Engine extends FakeBackend {
        RuntimeException listening;
        RuntimeException ports;
        int portsAsked;

        @Override
        public synchronized boolean listensAt(String sandboxName, URI endpoint) {
            if (listening != null) {
                throw listening;
            }
            return true;
        }

        @Override
        public synchronized URI endpoint(String sandboxName, int port) {
            portsAsked++;
            if (ports != null) {
                throw ports;
            }
            return URI.create("http://127.0.0.1:" + (30000 + port));
        }
    }

    private SandboxRuntime ready() {
        SandboxRuntime runtime = new SandboxRuntime("s1", "alice", "local", "img", 1.0, 512, 60, Instant.EPOCH);
        runtime.useServiceKey("service-key");
        runtime.publishesPorts(Map.of(ProxyTarget.MAIN, 8000, "work-1", 12000));
        runtime.transitionTo(RuntimeStatus.RUNTIME_STARTED, "t", Instant.EPOCH);
        runtime.reachableAt("http://127.0.0.1:40000");
        runtime.transitionTo(RuntimeStatus.READY, "t", Instant.EPOCH);
        rows.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", Instant.EPOCH));
        return runtime;
    }

    @Test
    void anEngineWhoseAnswerCouldNotBeReadMakesTheRuntimeRecoveringNotALookUpFailure() {
        SandboxRuntime runtime = ready();
        engine.listening = new RuntimeException(new SocketTimeoutException("Read timed out"));

        ProxyTarget target = endpoints.find(runtime.id()).orElseThrow();

        // a 503 with Retry-After to the client (Admission), where the exception made a 500 before
        assertEquals(ProxyTarget.State.RECOVERING, target.state());
    }

    @Test
    void aServicePortTheEngineCouldNotTellIsARecoveryAskedAgainOnTheNextRequest() {
        SandboxRuntime runtime = ready();
        engine.ports = new EngineUnreachableException("the Docker engine of node 'local' does not answer", null);
        ProxyTarget unreachable = endpoints.find(runtime.id()).orElseThrow();
        engine.ports = new RuntimeException(new SocketTimeoutException("Read timed out"));
        ProxyTarget slow = endpoints.find(runtime.id()).orElseThrow();
        engine.ports = null;
        ProxyTarget after = endpoints.find(runtime.id()).orElseThrow();
        ProxyTarget later = endpoints.find(runtime.id()).orElseThrow();

        // a 503 with Retry-After for the request, not a 404 for a service it has (nor a 500)
        assertEquals(ProxyTarget.State.RECOVERING, unreachable.state());
        assertTrue(unreachable.services().containsKey("work-1"));
        assertEquals(ProxyTarget.State.RECOVERING, slow.state());
        // before, the absence was kept for as long as the sandbox kept its address
        assertEquals(ProxyTarget.State.READY, after.state());
        assertEquals(URI.create("http://127.0.0.1:42000"), after.services().get("work-1"));
        assertEquals(URI.create("http://127.0.0.1:42000"), later.services().get("work-1"));
        assertEquals(3, engine.portsAsked, "asked at each of the three requests until it answered; then known");
        assertTrue(after.services().containsKey(ProxyTarget.MAIN));
    }

    @Test
    void aPortNotPublishedIsAbsentForAFewSecondsThenAskedAgain() {
        SandboxRuntime runtime = ready();
        engine.ports = new BackendException("Docker published no host port for the executor (container state: exited)");
        ProxyTarget stopped = endpoints.find(runtime.id()).orElseThrow();
        engine.ports = null;
        now += TimeUnit.SECONDS.toNanos(4);
        ProxyTarget soon = endpoints.find(runtime.id()).orElseThrow();
        now += TimeUnit.SECONDS.toNanos(1);
        ProxyTarget started = endpoints.find(runtime.id()).orElseThrow();

        assertEquals(ProxyTarget.State.READY, stopped.state());
        assertFalse(stopped.services().containsKey("work-1"));
        assertFalse(soon.services().containsKey("work-1"), "the engine is not asked at every request");
        assertEquals(URI.create("http://127.0.0.1:42000"), started.services().get("work-1"), "not kept absent");
        assertEquals(2, engine.portsAsked, "asked at the first request and again 5 s later");
    }

    /**
     * An engine restart signals every sandbox at once; each executor closes its connections as it
     * begins to stop, seconds before the engine records its sandbox stopped (the soak of 2026-12-02
     * 11:37: two envd calls answered 502 "failed" then). A running sandbox whose executor no longer
     * answers is stopping: recovered, as one found stopped.
     */
    @Test
    void aRunningSandboxWhoseExecutorNoLongerAnswersIsBeingRecovered() {
        SandboxRuntime runtime = ready();
        engine.put(runtime.containerName(), runtime.id(), Instant.EPOCH, SandboxState.Phase.RUNNING);
        List<URI> asked = new ArrayList<>();
        boolean[] serving = {true};
        endpoints.executors = new ExecutorClient() {
            @Override
            public boolean isGone(URI endpoint) {
                asked.add(endpoint);
                return !serving[0];
            }
        };

        boolean whileServing = endpoints.unanswered(runtime.id());
        serving[0] = false;
        boolean once = endpoints.unanswered(runtime.id());

        assertFalse(whileServing, "a server that answers dropped one request: the proxy's 502");
        assertTrue(once);
        assertEquals(List.of(URI.create("http://127.0.0.1:40000"), URI.create("http://127.0.0.1:40000")), asked,
                "asked at its own address");
        assertEquals(List.of(new SandboxUnanswered(runtime.id())),
                passesAsked.fired(), "the reconciler asked for a pass");
    }

    @Test
    void theProgramOfAnotherImageIsNotAskedWhetherItServes() {
        SandboxRuntime runtime = ready();
        runtime.runsProgram(new SandboxProgram(List.of("/app/serve"), null, Map.of(), null, null, 8000, null));
        engine.put(runtime.containerName(), runtime.id(), Instant.EPOCH, SandboxState.Phase.RUNNING);
        endpoints.executors = new ExecutorClient() {
            @Override
            public boolean isGone(URI endpoint) {
                throw new AssertionError("asked " + endpoint);
            }
        };

        // it may run without serving, and nothing would recover it: the 502 stays
        assertFalse(endpoints.unanswered(runtime.id()));
    }
}
