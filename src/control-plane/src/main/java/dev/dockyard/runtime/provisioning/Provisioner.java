package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Provisions runtimes: records the request, then (on a managed thread, outside any transaction)
 * creates and starts the sandbox and waits for its executor, recording each step's outcome.
 *
 * <p>STARTING_RUNTIME → RUNTIME_STARTED → READY, or ERROR naming the failed step with the sandbox
 * removed. If the runtime is stopped while it is being built, the next status change is refused
 * and the sandbox is removed instead.
 */
@ApplicationScoped
public class Provisioner {

    private static final Logger LOG = Logger.getLogger(Provisioner.class.getName());

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimeBackend backend;

    @Inject
    ReadinessProbe readiness;

    @Inject
    dev.dockyard.runtime.executor.ExecutorClient executors;

    @Inject
    dev.dockyard.credentials.Credentials credentials;

    @Inject
    SandboxConfigurations configurations;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    dev.dockyard.tenancy.Accounts accounts;

    @Resource
    ManagedExecutorService executor;

    /** Completed when a runtime that is being provisioned settles (READY, ERROR or STOPPED). */
    private final Map<String, CompletableFuture<RuntimeStatus>> settling = new ConcurrentHashMap<>();

    /**
     * Records the runtime and starts bringing it up in the background.
     *
     * @throws ConversationBusyException when the conversation already has a live runtime
     */
    public SandboxRuntime provision(ProvisioningRequest request) {
        SandboxRuntime runtime = new SandboxRuntime(request.conversationId(), request.userId(), backend.name(),
                request.image(), request.cpus(), request.memoryMb(), request.timeoutSeconds(), clock.instant());
        runtime.configuredFor(request.agent().name(), request.llm());
        try {
            accounts.ensure(request.userId(), request.role());
        } catch (PersistenceException | jakarta.transaction.TransactionalException raced) {
            // a parallel first request created the row: it exists, which is all that matters
        }
        // in flight before it is visible: a reconciler pass in between must not take it for an orphan
        CompletableFuture<RuntimeStatus> settled = new CompletableFuture<>();
        settling.put(runtime.id(), settled);
        try {
            ProvisioningJournal.Registration registration = journal.register(runtime, request.role(), request.replace());
            if (registration.overQuota() != null) {
                throw registration.overQuota();
            }
            if (registration.existing() != null) {
                throw new ConversationBusyException(registration.existing());
            }
        } catch (PersistenceException | jakarta.transaction.TransactionalException e) {
            settling.remove(runtime.id());
            // lost a race for the conversation: the unique constraint fired; report the winner
            Optional<SandboxRuntime> winner = journal.live(request.userId(), request.conversationId());
            if (winner.isPresent()) {
                throw new ConversationBusyException(winner.get());
            }
            throw e;
        } catch (RuntimeException e) {
            settling.remove(runtime.id());
            throw e;
        }
        SandboxSpec spec = new SandboxSpec(runtime.id(), runtime.conversationId(), config.instance(),
                runtime.containerName(),
                runtime.image(), runtime.cpus(), config.sandboxBootCpus(), runtime.memoryMb(), config.sandboxPidsLimit(),
                config.sandboxUser(), config.executorPort(), request.environment(), runtime.sessionKey());
        executor.execute(() -> {
            RuntimeStatus outcome = RuntimeStatus.ERROR;
            try {
                outcome = bringUp(spec, runtime, Duration.ofSeconds(request.timeoutSeconds()), request.failAt());
            } finally {
                settling.remove(runtime.id());
                settled.complete(outcome);
            }
        });
        return runtime;
    }

    /** Whether this control plane is bringing the runtime up right now. */
    public boolean isInFlight(String runtimeId) {
        return settling.containsKey(runtimeId);
    }

    /** Waits up to {@code wait} for a runtime that is being provisioned to settle. */
    public Optional<RuntimeStatus> awaitSettled(String runtimeId, Duration wait) {
        CompletableFuture<RuntimeStatus> settled = settling.get(runtimeId);
        if (settled == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(settled.get(wait.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            return Optional.empty();
        }
    }

    private RuntimeStatus bringUp(SandboxSpec spec, SandboxRuntime runtime, Duration timeout,
                                  ProvisioningStep failAt) {
        String id = spec.runtimeId();
        StepTimer timer = new StepTimer(failAt);
        ProvisioningStep step = ProvisioningStep.CREDENTIALS;
        try {
            SandboxConfiguration configuration = timer.time(step, () -> configurations.of(runtime,
                    credentials.resolveAll(runtime.userId())));
            step = ProvisioningStep.CREATE;
            String containerId = timer.time(step, () -> backend.create(spec));
            step = ProvisioningStep.START;
            URI endpoint = timer.time(step, () -> backend.start(spec.name(), spec.executorPort()));
            step = ProvisioningStep.RECORD;
            timer.time(step, () -> journal.transition(id, RuntimeStatus.RUNTIME_STARTED,
                    "Container started; waiting for the executor", r -> {
                        r.placed(containerId);
                        r.reachableAt(endpoint.toString());
                    }, spec.name(), failAt == ProvisioningStep.RECORD));
            step = ProvisioningStep.READINESS;
            ReadinessAttempt attempt = new ReadinessAttempt(spec.name(), endpoint, spec.sessionKey(), timeout, clock);
            timer.time(step, () -> {
                readiness.probe(attempt);
                return null;
            });
            step = ProvisioningStep.INJECT;
            timer.time(step, () -> {
                executors.configure(endpoint, spec.sessionKey(), configuration.env(), configuration.fileAccess());
                return null;
            });
            step = ProvisioningStep.LIMITS;
            timer.time(step, () -> {
                backend.settle(spec.name(), spec.cpus());
                return null;
            });
            String replaced = journal.readyAndTakeOver(id, "Ready " + timer.summary());
            if (replaced != null) {
                removeQuietly(replaced);
            }
            return RuntimeStatus.READY;
        } catch (IllegalTransitionException e) {
            // stopped while being built: what was built must go, the status stays as the stop left it
            LOG.info("Runtime " + id + " was stopped during provisioning; removing its sandbox");
            removeQuietly(spec.name());
            return e.from();
        } catch (StepFailedException e) {
            removeQuietly(spec.name());
            return fail(id, e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Provisioning " + id + " failed unexpectedly at step " + step.label(), e);
            removeQuietly(spec.name());
            return fail(id, "Provisioning failed at step '" + step.label() + "': " + e);
        }
    }

    private RuntimeStatus fail(String id, String message) {
        try {
            journal.transition(id, RuntimeStatus.ERROR, message);
            return RuntimeStatus.ERROR;
        } catch (IllegalTransitionException e) {
            return e.from();
        } catch (RuntimeException e) {
            // the database is failing too: the reconciler will find the runtime stuck and fail it
            LOG.log(Level.SEVERE, "Could not record the failure of runtime " + id + ": " + message, e);
            return RuntimeStatus.ERROR;
        }
    }

    /**
     * Stops a runtime for good: records STOPPED first, so provisioning still at work on it backs
     * off, then removes its sandbox.
     */
    public SandboxRuntime stop(String runtimeId) {
        SandboxRuntime runtime = journal.stop(runtimeId, "Stopped on request");
        backend.remove(runtime.containerName());
        return runtime;
    }

    private void removeQuietly(String name) {
        try {
            backend.remove(name);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not remove sandbox " + name + "; the reconciler will", e);
        }
    }
}
