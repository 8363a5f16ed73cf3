package dev.dockyard.application.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.SandboxState;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.lifecycle.Activity;
import dev.dockyard.runtime.reconciliation.SandboxUnanswered;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The proxy's view of runtimes: read from the runtime's row on every request (so a pause, a
 * stop or a new key takes effect at once), with the sandbox's published host ports asked of the
 * backend once per sandbox address (they change only when the container is started again, which
 * records a new address).
 */
@ApplicationScoped
public class ServiceEndpoints implements ProxyTargets {

    @Inject
    RuntimeRepository runtimes;

    @Inject
    BackendNodes nodes;

    @Inject
    ProxyTraffic traffic;

    @Inject
    Activity activity;

    @Inject
    Event<SandboxUnanswered> outages;

    @Inject
    RuntimeGates gates;

    /** Asks a sandbox whose server refused or dropped a request whether it is still there (none: not asked). */
    @Inject
    ExecutorClient executors;

    private static final Logger LOG = Logger.getLogger(ServiceEndpoints.class.getName());
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long ports read with one missing are used before the engine is asked again. */
    private static final long INCOMPLETE_KEPT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final URI NO_ADDRESS = URI.create("http://127.0.0.1:0");

    /** The monotonic clock the ports' age is read on (a test's own in tests). */
    LongSupplier nanoClock = System::nanoTime;

    /** runtime id → the sandbox address the ports were read for, and the ports. */
    private final Map<String, Ports> ports = new ConcurrentHashMap<>();

    /** When an engine's unexpected failure was last logged with its trace (nanoTime, offset so that the first one is). */
    private final AtomicLong lastWarned = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

    /** Ports read for a sandbox address; {@code complete} false when one was not published, read again after a while. */
    private record Ports(String mainAddress, Map<String, URI> services, boolean complete, long readAt) {

        boolean usableFor(String address, long now) {
            return mainAddress.equals(address) && (complete || now - readAt < INCOMPLETE_KEPT_NANOS);
        }
    }

    @Override
    public Optional<ProxyTarget> find(String runtimeId) {
        Optional<SandboxRuntime> found = runtimes.find(runtimeId);
        if (found.isEmpty() || !found.get().status().isLive() || found.get().serviceKey() == null) {
            ports.remove(runtimeId);
            return Optional.empty();
        }
        SandboxRuntime runtime = found.get();
        ProxyTarget.State state = switch (runtime.status()) {
            // frozen by this process's snapshot or migration for a moment: its requests wait as before
            case READY -> listensAt(runtime) || held(runtime) ? ProxyTarget.State.READY : lostItsServer(runtime);
            case PAUSED, HIBERNATED -> ProxyTarget.State.PAUSED;
            // the reconciler is starting its stopped sandbox again, or waiting for its node to answer
            case ERROR_RUNTIME_DISCONNECTED -> ProxyTarget.State.RECOVERING;
            default -> ProxyTarget.State.NOT_READY;
        };
        Map<String, URI> services = null;
        if (state == ProxyTarget.State.READY) {
            services = services(runtime);
            if (services == null) {
                // its engine could not say where its services listen now: a 503 with Retry-After, asked again then
                state = ProxyTarget.State.RECOVERING;
            }
        }
        // a runtime that cannot take traffic still names its services: the proxy answers 503 or 502 for
        // them (OpenHands' clients resume on a 503), not 404
        return Optional.of(new ProxyTarget(runtime.id(), runtime.userId(), state, runtime.serviceKey(),
                runtime.sessionKey(), services == null ? named(runtime) : services));
    }

    @Override
    public Optional<ProxyTarget> findByKey(Predicate<String> matches) {
        return runtimes.live().stream()
                .filter(r -> r.serviceKey() != null && r.servicePorts().containsKey(ProxyTarget.MAIN))
                .filter(r -> matches.test(r.serviceKey()))
                .findFirst().flatMap(r -> find(r.id()));
    }

    /**
     * A READY runtime whose sandbox's server no longer listens (its sandbox stopped with an engine
     * restart, or its executor exited) or is frozen by work that was cut off: the reconciler is asked
     * for a pass now, which starts it again or records it asleep.
     */
    private ProxyTarget.State lostItsServer(SandboxRuntime runtime) {
        outages.fireAsync(new SandboxUnanswered(runtime.id()));
        return ProxyTarget.State.RECOVERING;
    }

    @Override
    public boolean unanswered(String runtimeId) {
        Optional<SandboxRuntime> runtime = runtimes.find(runtimeId);
        if (runtime.isEmpty() || !runtime.get().status().isLive()) {
            return false;
        }
        boolean stopped;
        try {
            SandboxState.Phase phase = nodes.on(nodes.named(runtime.get().node()))
                    .inspect(runtime.get().containerName()).phase();
            stopped = phase != SandboxState.Phase.RUNNING && phase != SandboxState.Phase.PAUSED
                    || phase == SandboxState.Phase.RUNNING && stopping(runtime.get());
        } catch (EngineUnreachableException e) {
            stopped = true; // the engine restarting: it stopped every sandbox, and starts them again
        } catch (BackendException e) {
            stopped = false;
        }
        if (stopped) {
            outages.fireAsync(new SandboxUnanswered(runtimeId));
        }
        return stopped;
    }

    /**
     * Whether a READY runtime's running sandbox no longer serves: Dockyard's executor is the
     * sandbox's first process, so a sandbox that runs without it is one on its way to stopping.
     * An engine stopping its containers (a restart) signals them all at once, and an executor
     * closes its connections as it begins to stop, seconds before the engine records its sandbox
     * stopped (the soak of 2026-12-02 11:37: two envd calls answered 502 "failed" then). The
     * program of another image is not asked: it may run without serving, and nothing would
     * recover it; nor is a slow executor taken for a stopping one.
     */
    private boolean stopping(SandboxRuntime runtime) {
        if (executors == null || runtime.status() != RuntimeStatus.READY || runtime.program().isPresent()
                || runtime.executorUrl() == null) {
            return false;
        }
        // no longer published (stopped since the engine was asked), or published with nothing behind it
        return !listensAt(runtime) || executors.isGone(URI.create(runtime.executorUrl()));
    }

    /** Whether a snapshot or migration of this process holds the runtime (its sandbox frozen meanwhile). */
    private boolean held(SandboxRuntime runtime) {
        return gates != null && gates.isMigrating(runtime.id());
    }

    /**
     * Whether the sandbox's own server still listens at its address: the proxy carries the
     * internal key there (a local sandbox's port may have changed hands once its executor exited).
     */
    private boolean listensAt(SandboxRuntime runtime) {
        if (runtime.executorUrl() == null) {
            return true;
        }
        try {
            return nodes.on(nodes.named(runtime.node()))
                    .listensAt(runtime.containerName(), URI.create(runtime.executorUrl()));
        } catch (BackendException e) {
            return false;
        } catch (RuntimeException e) {
            // the engine could not say (an answer that did not come in time, one it could not read):
            // the request waits for a recovery, a 503 with Retry-After, rather than a 500 to the client
            warnAtMostEvery30s("Asking node '" + runtime.node() + "' where " + runtime.id() + " listens failed", e);
            return false;
        }
    }

    /** The services by name only, for a runtime that takes no traffic now: no address is ever used. */
    private static Map<String, URI> named(SandboxRuntime runtime) {
        Map<String, URI> services = new LinkedHashMap<>();
        runtime.servicePorts().keySet().forEach(name -> services.put(name, NO_ADDRESS));
        return services;
    }

    /**
     * The services' addresses; null when the engine could not say (it does not answer, or its
     * answer could not be read). Kept for the sandbox's address; when a port was not published,
     * only for a few seconds (it may be a moment from being published), so that a service that
     * never is does not cost an engine call on every request.
     */
    private Map<String, URI> services(SandboxRuntime runtime) {
        String main = runtime.executorUrl();
        if (main == null) {
            return Map.of();
        }
        Ports known = ports.get(runtime.id());
        if (known != null && known.usableFor(main, nanoClock.getAsLong())) {
            return known.services();
        }
        Map<String, URI> services = new LinkedHashMap<>();
        boolean[] complete = {true};
        boolean[] unanswered = {false};
        runtime.servicePorts().forEach((name, port) -> {
            if (name.equals(ProxyTarget.MAIN)) {
                // only runtimes that asked for it (the Remote Runtime API's, E2B's) expose their main port:
                // through it, Dockyard's executor would take actions past Dockyard's policies
                services.put(ProxyTarget.MAIN, URI.create(main));
                return;
            }
            try {
                services.put(name, nodes.on(nodes.named(runtime.node())).endpoint(runtime.containerName(), port));
            } catch (EngineUnreachableException e) {
                unanswered[0] = true;
            } catch (BackendException e) {
                // not published (a sandbox from before the port was asked for, or one that stopped a
                // moment ago): that service is absent for this request
                complete[0] = false;
            } catch (RuntimeException e) {
                // an answer that did not come in time, or one that could not be read
                warnAtMostEvery30s("Asking node '" + runtime.node() + "' for port " + port + " of " + runtime.id()
                        + " failed", e);
                unanswered[0] = true;
            }
        });
        if (unanswered[0]) {
            return null;
        }
        Map<String, URI> read = Map.copyOf(services);
        ports.put(runtime.id(), new Ports(main, read, complete[0], nanoClock.getAsLong()));
        return read;
    }

    /**
     * Logs an engine's unexpected failure with its trace, at most every half minute: during an
     * outage every proxied request meets it.
     */
    private void warnAtMostEvery30s(String what, RuntimeException e) {
        long now = System.nanoTime();
        long last = lastWarned.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarned.compareAndSet(last, now)) {
            LOG.log(Level.WARNING, what + " (logged at most every 30 s)", e);
        } else {
            LOG.log(Level.FINE, what, e);
        }
    }

    @Override
    public void traffic(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut) {
        traffic.count(runtimeId, service, websocket, bytesIn, bytesOut);
        // a request through the service URL is use: the idle lifecycle does not pause a runtime in use
        activity.touch(runtimeId);
    }
}
