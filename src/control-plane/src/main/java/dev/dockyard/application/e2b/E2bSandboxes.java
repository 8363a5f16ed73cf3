package dev.dockyard.application.e2b;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.application.Refused;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.RuntimeMetadata;
import dev.dockyard.placement.NodeHealth;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.IdleLifecycle;
import dev.dockyard.runtime.provisioning.ProvisioningCleanup;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.tenancy.QuotaExceededException;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * E2B's sandboxes on Dockyard's runtimes: create, find, list, kill, set the timeout, connect
 * (resume), pause, fork. A sandbox is a runtime of Dockyard's executor in a conversation of its own,
 * created through this API (it has a template, see {@link RuntimeMetadata}); runtimes of Dockyard's
 * other APIs are not E2B's to see. A user sees only their own sandboxes (another's is as unknown as
 * one that never existed), an admin everyone's, as on Dockyard's API.
 *
 * <p>The end time is the runtime's ({@link SandboxRuntime#endsAt()}): {@code now + timeout} at
 * creation, set by {@link #setTimeout} (earlier or later), only ever extended by {@link #connect};
 * the idle lifecycle stops the runtime then, or pauses it when it was created with {@code autoPause}.
 * The configured TTL ({@code dockyard.lifecycle.ttl}) still caps its life from creation.
 */
@ApplicationScoped
public class E2bSandboxes {

    /**
     * How long a create waits for its sandbox to be READY: below the SDKs' 60 s request timeout, so
     * that the caller hears why rather than its own timeout.
     */
    public static final Duration READY_WAIT = Duration.ofSeconds(50);

    @Inject
    RuntimeService lifecycle;

    @Inject
    NodeHealth health;

    @Inject
    ProvisioningJournal journal;

    @Inject
    IdleLifecycle idle;

    @Inject
    Templates templates;

    @Inject
    Snapshots snapshots;

    @Inject
    AgentCatalog agents;

    @Inject
    DockyardConfig config;

    @Inject
    BackendNodes nodes;

    @Inject
    Clock clock;

    private static final long MIB = 1024L * 1024;

    /** What a connect did: resumed a paused sandbox (E2B's 201) or found it running (200). */
    public record Connected(SandboxRuntime runtime, boolean resumed) {
    }

    /**
     * Provisions the sandbox (from a warm pool when its template names one) and answers it once it
     * is READY, its environment injected; one that is not READY within {@link #READY_WAIT} is
     * removed and refused, so that nothing the caller never heard of runs on.
     */
    public SandboxRuntime create(String userId, Role role, NewSandbox asked) {
        Templates.Template template = templates.resolve(asked.template(), userId, role);
        AgentProfile agent = agents.find(agents.defaultAgent()).orElseThrow();
        ProvisioningRequest request = new ProvisioningRequest(userId, role, "e2b-" + UUID.randomUUID(), agent,
                LlmSettings.NONE, template.image(), template.cpus(), template.memoryMb(),
                (int) config.sandboxTimeout().toSeconds(), asked.environment(), ExtraDependencies.NONE,
                template.plugins(), null, false, null, null, Map.of(ProxyTarget.MAIN, config.executorPort()),
                lifecycle(asked.timeoutSeconds(), asked.pauseAtEnd() ? EndAction.PAUSE : EndAction.STOP),
                template.workspace())
                .withExecutorServer(template.executorServer())
                .describedAs(new RuntimeMetadata(asked.template(), asked.metadata()));
        if (asked.egress() != null) {
            request = request.withEgress(asked.egress());
        }
        return provisionReady(request);
    }

    /** What one fork gave: its sandbox, or why it was not made (E2B answers each fork on its own). */
    public record Forked(SandboxRuntime sandbox, Refused refusal) {
    }

    /**
     * Forks the sandbox {@code count} times: each fork a snapshot of it (its files, not its memory)
     * and a sandbox booted on that snapshot with its settings, template and metadata, ending
     * {@code timeoutSeconds} after its creation as its source does (killed or paused); each answered
     * once READY, as a create is.
     */
    public List<Forked> fork(SandboxRuntime source, String userId, Role role, int timeoutSeconds, int count) {
        List<Forked> forks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                ProvisioningRequest request = snapshots.forkRequest(source, "e2b-" + UUID.randomUUID(), userId, role)
                        .with(lifecycle(timeoutSeconds, source.atEnd()))
                        .describedAs(source.metadata());
                forks.add(new Forked(provisionReady(request), null));
            } catch (Refused refused) {
                forks.add(new Forked(null, refused));
            }
        }
        return forks;
    }

    /** A sandbox's lifecycle: no idle pause, the configured TTL, its end {@code timeoutSeconds} after creation. */
    private ProvisioningRequest.Lifecycle lifecycle(int timeoutSeconds, EndAction atEnd) {
        return new ProvisioningRequest.Lifecycle(false, 0, config.ttlSeconds(), timeoutSeconds, atEnd);
    }

    private SandboxRuntime provisionReady(ProvisioningRequest request) {
        SandboxRuntime runtime;
        try {
            runtime = lifecycle.provision(request);
        } catch (QuotaExceededException e) {
            throw new Refused(Refused.Reason.QUOTA_EXCEEDED, e.getMessage());
        }
        return ready(runtime);
    }

    private SandboxRuntime ready(SandboxRuntime runtime) {
        if (runtime.status() == RuntimeStatus.READY) {
            return runtime;
        }
        SandboxRuntime settled;
        try {
            settled = lifecycle.settled(runtime, READY_WAIT).toCompletableFuture()
                    .get(READY_WAIT.toSeconds() + 5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            settled = journal.find(runtime.id()).orElse(runtime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            settled = journal.find(runtime.id()).orElse(runtime);
        }
        if (settled.status() == RuntimeStatus.READY) {
            return settled;
        }
        if (settled.status().isLive()) {
            lifecycle.delete(settled.id(), false);
            // still booting when the SDK would give up (a node busy with other boots): nothing is
            // broken, and a create a moment later may find a turn sooner, so a 503 with Retry-After
            throw new Refused(Refused.Reason.NODE_UNAVAILABLE, "The sandbox was not ready within "
                    + READY_WAIT.toSeconds() + " s (" + settled.status() + ": " + settled.statusMessage()
                    + "); it was removed").retryAfter(EngineUnreachableException.RETRY_AFTER_SECONDS);
        }
        if (nodeWasAway(settled)) {
            // its node's engine stopped answering while it was provisioned (restarting, cut off; asked
            // now if no probe said so yet, as an engine that stops kills the boot before its next probe;
            // or back already, after a probe failed during the provision: the soak of 2026-12-01 04:55,
            // a boot stopped by the engine's restart, "container exited with code 143", and a provision
            // whose engine call found node2 being cut off while its probe still answered, which the
            // provision recorded as the node's failure): nothing is
            // wrong with the request, and a create a moment later goes to another node, or finds it back
            throw new Refused(Refused.Reason.NODE_UNAVAILABLE, "The sandbox could not be started: "
                    + settled.statusMessage()).retryAfter(EngineUnreachableException.RETRY_AFTER_SECONDS);
        }
        Refused failed = new Refused(Refused.Reason.BACKEND_FAILED, "The sandbox could not be started: "
                + settled.statusMessage());
        if (ProvisioningCleanup.failedForTheDatabase(settled.statusMessage())) {
            // the control plane's database stopped answering on the way (the soak's PostgreSQL stop,
            // 2026-12-01): the same create succeeds once it answers, which the SDK is told to wait for
            failed.retryAfter(EngineUnreachableException.RETRY_AFTER_SECONDS);
        }
        throw failed;
    }

    /** Whether the runtime's node's engine did not answer at some time since it was created, or does not now. */
    private boolean nodeWasAway(SandboxRuntime runtime) {
        String node = runtime.node();
        return node != null && (health.knownDown(node) || health.failedSince(node, runtime.createdAt())
                || !health.probe(node).healthy());
    }

    /**
     * The caller's live sandbox {@code sandboxId} names, ended first if its end time has passed (so
     * that a client reading it after its timeout finds it gone, or paused).
     */
    public Optional<SandboxRuntime> find(String userId, boolean admin, String sandboxId) {
        Optional<SandboxRuntime> found = SandboxIds.runtimeId(sandboxId).flatMap(journal::find)
                .filter(r -> admin || r.userId().equals(userId))
                .filter(r -> r.metadata().template() != null)
                .filter(r -> r.status().isLive());
        if (found.isPresent() && idle.endIfDue(found.get().id())) {
            return journal.find(found.get().id()).filter(r -> r.status().isLive());
        }
        return found;
    }

    /** One page of the caller's live sandboxes (everyone's for an admin) that the query selects. */
    public Page<SandboxRuntime> list(String userId, boolean admin, SandboxQuery query) {
        Instant now = clock.instant();
        Comparator<SandboxRuntime> order = Comparator.comparing(SandboxRuntime::createdAt)
                .thenComparing(SandboxRuntime::id);
        if (!query.ascending()) {
            order = order.reversed();
        }
        List<SandboxRuntime> selected = new ArrayList<>();
        for (SandboxRuntime runtime : journal.live()) {
            if ((admin || runtime.userId().equals(userId)) && runtime.metadata().template() != null) {
                current(runtime, now).filter(r -> selects(query, r)).ifPresent(selected::add);
            }
        }
        selected.sort(order);
        if (query.after() != null) {
            // the runtimes at or before the previous page's last one, in the query's order
            selected.removeIf(r -> (query.ascending() ? 1 : -1) * comparedTo(r, query.after()) <= 0);
        }
        if (selected.size() <= query.limit()) {
            return new Page<>(selected, null);
        }
        List<SandboxRuntime> page = selected.subList(0, query.limit());
        SandboxRuntime last = page.get(page.size() - 1);
        return new Page<>(page, new PageToken(last.createdAt(), last.id()));
    }

    /** The runtime as it is once its end has been applied, if that was due; empty once ended. */
    private Optional<SandboxRuntime> current(SandboxRuntime runtime, Instant now) {
        boolean pastEnd = runtime.status() == RuntimeStatus.READY
                && runtime.endsAt().filter(end -> !now.isBefore(end)).isPresent();
        if (pastEnd && idle.endIfDue(runtime.id())) {
            return journal.find(runtime.id()).filter(r -> r.status().isLive());
        }
        return Optional.of(runtime);
    }

    /** The runtime's place against a page mark, by start, then id: negative before it, positive after. */
    private static int comparedTo(SandboxRuntime runtime, PageToken mark) {
        int byStart = runtime.createdAt().compareTo(mark.createdAt());
        return byStart != 0 ? byStart : runtime.id().compareTo(mark.id());
    }

    static boolean selects(SandboxQuery query, SandboxRuntime runtime) {
        RuntimeMetadata metadata = runtime.metadata();
        Optional<SandboxState> state = SandboxState.of(runtime.status());
        return state.isPresent() && (query.states().isEmpty() || query.states().contains(state.get()))
                && (query.template() == null || query.template().equals(metadata.template()))
                && (query.startedAfter() == null || runtime.createdAt().isAfter(query.startedAfter()))
                && query.metadata().entrySet().stream()
                        .allMatch(e -> e.getValue().equals(metadata.values().get(e.getKey())));
    }

    /** Kills the sandbox: its runtime stopped and removed. */
    public void kill(SandboxRuntime runtime) {
        lifecycle.delete(runtime.id(), false);
    }

    /** Its end is {@code seconds} from now, earlier or later than it was. */
    public void setTimeout(SandboxRuntime runtime, int seconds) {
        Instant end = clock.instant().plusSeconds(seconds);
        journal.update(runtime.id(), r -> r.endsAt(end));
    }

    /**
     * Its end at least {@code seconds} from now (never earlier than it was), then a paused sandbox
     * resumed: the end first, so that no sweep ends it between the two.
     */
    public Connected connect(SandboxRuntime runtime, int seconds) {
        Instant wanted = clock.instant().plusSeconds(seconds);
        journal.update(runtime.id(), r -> r.endsAt(r.endsAt().filter(end -> end.isAfter(wanted)).orElse(wanted)));
        if (SandboxState.of(runtime.status()).orElse(null) != SandboxState.PAUSED) {
            return new Connected(journal.find(runtime.id()).orElse(runtime), false);
        }
        return new Connected(lifecycle.resume(runtime.id()), true);
    }

    /** Pauses a running sandbox; one already paused (or not READY) is a conflict, E2B's 409. */
    public void pause(SandboxRuntime runtime) {
        if (runtime.status() != RuntimeStatus.READY) {
            throw new Refused(Refused.Reason.CONFLICT, "Sandbox " + SandboxIds.sandboxId(runtime.id()) + " is not "
                    + "running (" + SandboxState.of(runtime.status()).map(SandboxState::apiName).orElse("ended") + ")");
        }
        try {
            lifecycle.pause(runtime.id());
        } catch (Refused e) {
            if (e.reason() == Refused.Reason.CONFLICT && e.retryAfterSeconds() > 0) {
                // the kernel could not freeze it in time: E2B's SDKs read a 409 on pause as "already
                // paused", so a busy sandbox is a service busy for a moment instead, 503
                throw new Refused(Refused.Reason.NODE_UNAVAILABLE, e.getMessage()).retryAfter(e.retryAfterSeconds());
            }
            throw e;
        }
    }

    /** E2B's deprecated resume: a paused sandbox resumed with a new end, else a conflict (409). */
    public Connected resume(SandboxRuntime runtime, int seconds) {
        if (SandboxState.of(runtime.status()).orElse(null) != SandboxState.PAUSED) {
            throw new Refused(Refused.Reason.CONFLICT, "Sandbox " + SandboxIds.sandboxId(runtime.id())
                    + " is already running");
        }
        return connect(runtime, seconds);
    }

    /**
     * One sample of what the sandbox uses, when its backend measures it: CPU in percent of its own
     * CPUs (the engine counts 100 per CPU of the node), memory against its limit; empty otherwise.
     */
    public Optional<SandboxMetric> metrics(SandboxRuntime runtime) {
        int cpus = (int) Math.ceil(runtime.cpus());
        int diskMb = runtime.workspace().diskMb() > 0 ? runtime.workspace().diskMb() : config.sandboxDiskMb();
        return nodes.on(runtime.node()).usage(runtime.containerName()).map(u -> new SandboxMetric(clock.instant(),
                cpus, Math.min(100.0, u.cpuPercent() / Math.max(runtime.cpus(), 0.01)), u.memoryBytes(),
                runtime.memoryMb() * MIB, u.cacheBytes(), 0, diskMb * MIB));
    }
}
