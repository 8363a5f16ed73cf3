package dev.dockyard.runtime.lifecycle;

import dev.dockyard.backend.SandboxState.Phase;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.fakes.FakeBackend;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.Placements;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.runtime.provisioning.Journals;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.SandboxConfigurations;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The real lifecycle services (gates, activity, pause/resume, hibernation, the idle sweep) over
 * the in-memory runtime table, a fake backend and a clock the test moves. The executor is a fake
 * that is always ready and records what was configured where.
 */
public final class Lifecycles {

    public final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    public final FakeRuntimes runtimes = new FakeRuntimes();
    public final FakeNodes nodes = new FakeNodes("local");
    public final FakeBackend backend = nodes.backend("local");
    public final TestConfig config = new TestConfig();
    public final RuntimeSecrets secrets = new RuntimeSecrets();
    public final ProvisioningJournal journal = Journals.over(runtimes, clock, secrets);
    public final RuntimeGates gates = new RuntimeGates();
    public final Activity activity = new Activity();
    public final PauseResume pauses = new PauseResume();
    public final Hibernation hibernation = new Hibernation();
    public final IdleLifecycle idle = new IdleLifecycle();
    /** The nodes' boot turns, as provisioning and pools share them. */
    public final BootTurns turns;
    /** The readiness limit of the runtimes {@link #ready} makes. */
    public volatile int readinessSeconds = 60;
    /** How long the fake executor takes to boot after a revive. */
    public volatile Duration bootTime = Duration.ZERO;
    /** Where each {@code /configure} went, with the variables it carried. */
    public final List<Map.Entry<URI, Map<String, String>>> configured = new CopyOnWriteArrayList<>();

    public Lifecycles() {
        ExecutorClient executors = new ExecutorClient() {
            @Override
            public boolean isReady(URI executor, String sessionKey) {
                return true;
            }

            @Override
            public void configure(URI executor, String sessionKey, SandboxConfiguration configuration) {
                configured.add(Map.entry(executor, configuration.env()));
            }
        };
        activity.clock = clock;
        pauses.journal = journal;
        pauses.nodes = nodes;
        pauses.executors = executors;
        pauses.gates = gates;
        pauses.hibernation = hibernation;
        pauses.activity = activity;
        hibernation.journal = journal;
        hibernation.nodes = nodes;
        hibernation.readiness = new ReadinessProbe() {
            @Override
            public void probe(ReadinessAttempt attempt) {
                try {
                    Thread.sleep(bootTime.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        hibernation.configurations = new SandboxConfigurations() {
            @Override
            public SandboxConfiguration of(SandboxRuntime runtime, Map<String, String> credentials) {
                return new SandboxConfiguration(runtime.environment(), "workspace", null, null);
            }
        };
        hibernation.credentials = new Credentials() {
            @Override
            public Resolution resolve(String userId) {
                return new Resolution(Map.of(), Map.of(), List.of());
            }
        };
        hibernation.executors = executors;
        hibernation.secrets = secrets;
        hibernation.config = config;
        hibernation.activity = activity;
        hibernation.gates = gates;
        hibernation.clock = clock;
        turns = Placements.turns(config);
        hibernation.turns = turns;
        idle.journal = journal;
        idle.nodes = nodes;
        idle.gates = gates;
        idle.pauses = pauses;
        idle.hibernation = hibernation;
        idle.activity = activity;
        idle.config = config;
        idle.clock = clock;
    }

    /** A READY runtime with the given lifecycle, its sandbox running. */
    public SandboxRuntime ready(boolean keepAlive, int idleTimeoutSeconds, int ttlSeconds) {
        return ready("alice", keepAlive, idleTimeoutSeconds, ttlSeconds);
    }

    /** A READY runtime of {@code userId} with the given lifecycle, its sandbox running. */
    public SandboxRuntime ready(String userId, boolean keepAlive, int idleTimeoutSeconds, int ttlSeconds) {
        SandboxRuntime runtime = new SandboxRuntime("conv-" + runtimes.live().size(), userId, "fake", "img", 1, 512,
                readinessSeconds, clock.instant());
        runtime.assignNode("local");
        runtime.ownedBy(config.instance);
        runtime.withEnvironment(Map.of("CANARY", "kept-across-hibernation"));
        runtime.withLifecycle(keepAlive, idleTimeoutSeconds, ttlSeconds);
        runtime.reachableAt("http://127.0.0.1:1");
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), "requested", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started", clock.instant()));
        runtimes.record(runtime.transitionTo(RuntimeStatus.READY, "ready", clock.instant()));
        backend.put(runtime.containerName(), runtime.id(), clock.instant(), Phase.RUNNING);
        return runtime;
    }

    public SandboxRuntime find(String id) {
        return runtimes.find(id).orElseThrow();
    }
}
