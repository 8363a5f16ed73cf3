package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.placement.BootTurns;
import dev.dockyard.placement.Placement;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeProgress;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxProgram;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusEvents;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.executor.ReadinessAttempt;
import dev.dockyard.runtime.executor.ReadinessProbe;
import dev.dockyard.runtime.executor.SandboxConfiguration;
import dev.dockyard.workspace.WorkspaceSetup;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Cold provisioning: a runtime in a sandbox of its own, created for it. Placement chooses the
 * node and the runtime is registered under the node's lock; then, on a managed thread and outside
 * any transaction, its sandbox is built step by step ({@link ProvisioningStep}: credentials, image,
 * a turn to boot on the node, create, start, readiness, inject, repository, limits), each step's
 * outcome recorded in a short transaction of the journal.
 *
 * <p>STARTING_RUNTIME → RUNTIME_STARTED → READY, or ERROR naming the failed step with the sandbox
 * removed. If the runtime is stopped while it is being built, the next status change is refused
 * and the sandbox is removed instead.
 *
 * <p>Two other paths end here too: a migration's new runtime ({@link Migrations}), whose workspace
 * is copied from its {@link MigrationSource} between create and start, and a claimed warm sandbox
 * that would not take its configuration ({@link WarmClaims}), provisioned cold instead.
 */
@ApplicationScoped
public class ColdProvisioning {

    private static final Logger LOG = Logger.getLogger(ColdProvisioning.class.getName());

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimeRegistrations registrations;

    @Inject
    RuntimesInFlight inFlight;

    @Inject
    ProvisioningCleanup cleanup;

    @Inject
    BackendNodes nodes;

    @Inject
    Placement placement;

    @Inject
    BootTurns turns;

    @Inject
    RuntimeImages images;

    @Inject
    WorkspaceSetup workspaceSetup;

    @Inject
    StatusEvents statusEvents;

    @Inject
    ReadinessProbe readiness;

    @Inject
    ExecutorClient executors;

    @Inject
    Credentials credentials;

    @Inject
    SandboxConfigurations configurations;

    @Inject
    DockyardConfig config;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Inject
    RuntimeSecrets secrets;

    @Resource
    ManagedExecutorService executor;

    /**
     * The least a readiness wait gets after a long creation (a remote node's start): an executor
     * that was running when created still has to answer once.
     */
    private static final Duration MIN_READINESS = Duration.ofSeconds(5);

    /**
     * Records the runtime on the node placement chooses and starts bringing it up in the background.
     *
     * @throws ConversationBusyException when the conversation already has a live runtime
     * @throws dev.dockyard.placement.PlacementRefusedException when no node (or not the named one) can take it now
     */
    public SandboxRuntime provision(ProvisioningRequest request) {
        String named = request.workspace().node();
        // cold: placement chooses the node (the named one, else the roomiest healthy one the user may
        // use) and the registration happens under its lock, so that no other provision takes the same room
        SandboxRuntime runtime = placement.place(named, request.memoryMb(), request.userId(), request.role(),
                chosen -> {
                    // asked for what the chosen node cannot give: a 400 naming it, before anything is recorded
                    nodes.requireIsolation(chosen, request.isolation());
                    SandboxRuntime described = registrations.describe(request, chosen, null);
                    registrations.register(described, request, null, inFlight.track(described.id()));
                    return described;
                });
        CompletableFuture<RuntimeStatus> settled = inFlight.settledFuture(runtime.id());
        if (!launch(runtime, settled, request.failAt(), null)) {
            return journal.find(runtime.id()).orElse(runtime);
        }
        return runtime;
    }

    /**
     * Brings the runtime up on a managed thread. Returns false when no thread would take the work
     * (the executor is shut down or saturated): the runtime is then ERROR at once, not left
     * "in flight" for ever where the reconciler never touches it. {@code workspace} is where a
     * migration's workspace comes from; null for any other runtime.
     */
    public boolean launch(SandboxRuntime runtime, CompletableFuture<RuntimeStatus> settled, ProvisioningStep failAt,
                          MigrationSource workspace) {
        AtomicBoolean told = new AtomicBoolean();
        Consumer<RuntimeStatus> done = outcome -> {
            if (told.compareAndSet(false, true)) {
                inFlight.settle(runtime.id(), settled, outcome, workspace);
            }
        };
        try {
            executor.execute(() -> {
                try {
                    bringUp(runtime, nodes.on(runtime.node()), Duration.ofSeconds(runtime.timeoutSeconds()), failAt,
                            workspace, done);
                } catch (RuntimeException | Error e) {
                    done.accept(RuntimeStatus.ERROR);
                    throw e;
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            LOG.warning("Provisioning of " + runtime.id() + " could not be scheduled: " + e.getMessage());
            done.accept(cleanup.fail(runtime.id(), "Provisioning could not start: the control plane has no "
                    + "thread for it now (it is shutting down or saturated); try again"));
            return false;
        }
    }

    /**
     * Brings the runtime up in two halves: its configuration and image on the calling thread, then,
     * once its node gives it a turn to boot ({@link BootTurns}), its sandbox on a managed thread;
     * no thread is held while it waits in line. {@code done} is told the outcome once.
     */
    private void bringUp(SandboxRuntime runtime, RuntimeBackend backend, Duration timeout, ProvisioningStep failAt,
                         MigrationSource workspace, Consumer<RuntimeStatus> done) {
        ColdBoot boot = new ColdBoot(runtime, backend, timeout, failAt, workspace);
        boolean[] waited = new boolean[1];
        long since;
        try {
            boot.prepare();
            boot.step = ProvisioningStep.TURN;
            boot.timer.inject(boot.step);
            since = System.nanoTime();
        } catch (RuntimeException e) {
            done.accept(boot.ended(e));
            return;
        }
        try {
            // the node boots a bounded number of sandboxes at once; this one's limits count from its turn
            turns.whenTurn(runtime.node(), BootTurns.Line.REQUEST, (booting, ahead) -> {
                waited[0] = true;
                waitingForTurn(runtime, booting, ahead);
            }, executor, turn -> {
                RuntimeStatus outcome = RuntimeStatus.ERROR;
                try {
                    boot.timer.took(ProvisioningStep.TURN, System.nanoTime() - since);
                    outcome = boot.withTurn(turn, waited[0]);
                } finally {
                    done.accept(outcome);
                }
            }, refused -> done.accept(boot.ended(new BackendException("the control plane could not go on with "
                    + "the boot at its turn (" + refused + ")"))));
        } catch (RuntimeException e) {
            // no turn taken (e.g. a malformed max-concurrent-boots of the node): ERROR with the cause
            done.accept(boot.ended(e));
        }
    }

    /** The runtime's message while it waits for a turn to boot: how many boot and wait there. */
    private void waitingForTurn(SandboxRuntime runtime, int booting, int ahead) {
        String message = "Waiting for a turn to boot on node '" + runtime.node() + "': " + booting
                + (booting == 1 ? " sandbox is" : " sandboxes are") + " booting there, " + ahead
                + " waiting ahead of this one";
        try {
            journal.update(runtime.id(), r -> {
                // a runtime deleted meanwhile keeps the message of its end
                if (r.status().isStarting()) {
                    r.requestedAs(message);
                }
            });
        } catch (RuntimeException e) {
            // only a message: the wait goes on
            LOG.fine("Could not record the wait of " + runtime.id() + ": " + e);
        }
    }

    /** One cold provisioning (or a migration's new sandbox) on its way up: its steps and what they made. */
    private final class ColdBoot {
        final SandboxRuntime runtime;
        final RuntimeBackend backend;
        final Duration timeout;
        final MigrationSource workspace;
        final ProvisioningStep failAt;
        final StepTimer timer;
        final Optional<SandboxProgram> program;
        ProvisioningStep step = ProvisioningStep.CREDENTIALS;
        SandboxConfiguration configuration;
        SandboxSpec spec;

        ColdBoot(SandboxRuntime runtime, RuntimeBackend backend, Duration timeout, ProvisioningStep failAt,
                 MigrationSource workspace) {
            this.runtime = runtime;
            this.backend = backend;
            this.timeout = timeout;
            this.workspace = workspace;
            this.failAt = failAt;
            this.timer = new StepTimer(failAt, metrics);
            this.program = runtime.program();
        }

        /** Before the turn: the configuration (with its credentials) and the image, built if need be. */
        void prepare() {
            String id = runtime.id();
            RuntimeImages.Resolution image;
            if (program.isEmpty()) {
                configuration = timer.time(step, () -> configurations.of(runtime,
                        credentials.resolveAll(runtime.userId())));
                secrets.remember(id, configuration.secretValues());
                step = ProvisioningStep.IMAGE;
                image = timer.time(step, () -> images.resolve(runtime.node(), runtime.image(),
                        runtime.extraDependencies(), build -> building(id, build)));
            } else {
                // its own server: no Dockyard configuration to resolve and inject, no image to build
                secrets.remember(id, RuntimeSecrets.secretLooking(program.get().environment()));
                step = ProvisioningStep.IMAGE;
                image = timer.time(step, () -> present(runtime));
            }
            if (image.build() != null) {
                journal.transition(id, RuntimeStatus.STARTING_RUNTIME, "Runtime image " + image.image() + " built ("
                        + image.build().path().name().toLowerCase() + " path); starting the sandbox");
            }
            spec = spec(runtime, image.image(), program.orElse(null));
        }

        /** With the turn: the sandbox created, started, ready, configured and recorded READY. */
        RuntimeStatus withTurn(BootTurns.Turn turn, boolean waited) {
            String id = runtime.id();
            try {
                if (waited) {
                    // deleted while it waited: its turn goes to the next one rather than to a sandbox nobody wants
                    RuntimeStatus now = journal.find(id).map(SandboxRuntime::status).orElse(RuntimeStatus.STOPPED);
                    if (!now.isStarting()) {
                        throw new IllegalTransitionException(id, now, RuntimeStatus.RUNTIME_STARTED);
                    }
                }
                step = ProvisioningStep.CREATE;
                long[] awaited = new long[1];
                String containerId = timer.time(step, () -> {
                    String created = backend.create(spec);
                    // a remote node builds and boots it on its own: created is when it runs there
                    long since = System.nanoTime();
                    backend.awaitRunning(spec.name(), timeout);
                    awaited[0] = System.nanoTime() - since;
                    return created;
                });
                // the wait for readiness gets what that wait left of the runtime's timeout (in whole seconds)
                Duration readinessTimeout = timeout.minusSeconds(Duration.ofNanos(awaited[0]).toSeconds());
                long workspaceBytes = 0;
                if (workspace != null) {
                    step = ProvisioningStep.WORKSPACE;
                    workspaceBytes = timer.time(step, () -> workspace.copyInto(backend, spec.name()));
                }
                step = ProvisioningStep.START;
                URI endpoint = timer.time(step, () -> backend.start(spec.name(), spec.executorPort()));
                step = ProvisioningStep.RECORD;
                timer.time(step, () -> journal.transition(id, RuntimeStatus.RUNTIME_STARTED,
                        "Container started; waiting for the executor", r -> {
                            // a warm sandbox that failed its claim is gone: this runtime's sandbox is its own
                            r.claimedFrom(null);
                            r.placed(containerId);
                            r.runsImage(spec.image());
                            r.reachableAt(endpoint.toString());
                        }, backend, spec.name(), failAt == ProvisioningStep.RECORD));
                step = ProvisioningStep.READINESS;
                ReadinessAttempt attempt = new ReadinessAttempt(backend, spec.name(), endpoint, spec.sessionKey(),
                        readinessTimeout.compareTo(MIN_READINESS) < 0 ? MIN_READINESS : readinessTimeout, clock,
                        program.isPresent());
                timer.time(step, () -> {
                    readiness.probe(attempt);
                    return null;
                });
                // booted, the costly part of a sandbox's start: the next one may go while this one's
                // configuration, clone and setup script run (its boot CPU allowance lasts until LIMITS)
                turn.close();
                if (program.isEmpty()) {
                    step = ProvisioningStep.INJECT;
                    timer.time(step, () -> {
                        executors.configure(endpoint, spec.sessionKey(), configuration);
                        return null;
                    });
                    if (workspace == null && runtime.repository().isPresent()) {
                        // a migration carries the workspace over: the repository is cloned once, at first provisioning
                        step = ProvisioningStep.REPOSITORY;
                        timer.time(step, () -> {
                            workspaceSetup.prepare(endpoint, spec.sessionKey(), runtime.repository().get());
                            return null;
                        });
                    }
                }
                step = ProvisioningStep.LIMITS;
                timer.time(step, () -> {
                    backend.settle(spec.name(), spec.cpus());
                    return null;
                });
                String message = "Ready " + timer.summary() + (workspace == null ? "" : "; migrated from node '"
                        + workspace.node() + "' with a workspace of " + workspaceBytes + " bytes");
                step = ProvisioningStep.RECORD;
                LockConflicts.retried(() -> journal.readyAndTakeOver(id, message))
                        .ifPresent(old -> cleanup.removeQuietly(nodes.on(old.node()), old.containerName()));
                metrics.ready(workspace == null ? DockyardMetrics.ReadyPath.COLD : DockyardMetrics.ReadyPath.MIGRATION,
                        timer.elapsed());
                return RuntimeStatus.READY;
            } catch (RuntimeException e) {
                return ended(e);
            }
        }

        /** What a failure at the current step leaves: the sandbox removed, the runtime ERROR (or as a stop left it). */
        RuntimeStatus ended(RuntimeException failure) {
            String id = runtime.id();
            String name = runtime.containerName();
            if (EngineUnreachableException.in(failure)) {
                // the next provision goes elsewhere, not to the engine this one just found gone
                placement.unreachable(runtime.node());
            }
            if (failure instanceof IllegalTransitionException e) {
                // stopped while being built: what was built must go, the status stays as the stop left it
                LOG.info("Runtime " + id + " was stopped during provisioning; removing its sandbox");
                cleanup.removeQuietly(backend, name);
                return e.from();
            }
            if (failure instanceof StepFailedException e) {
                cleanup.removeQuietly(backend, name);
                return cleanup.fail(id, e.getMessage());
            }
            // the exception's text may quote the sandbox's output: only its redacted form is logged
            LOG.warning("Provisioning " + id + " failed unexpectedly at step " + step.label() + ": "
                    + secrets.redact(runtime, failure.toString()));
            cleanup.removeQuietly(backend, name);
            return cleanup.fail(id, ProvisioningCleanup.failedAt(step, failure));
        }
    }

    /** What the backend creates for the runtime: Dockyard's executor, or the program of another image. */
    private SandboxSpec spec(SandboxRuntime runtime, String image, SandboxProgram program) {
        List<Integer> servicePorts = List.copyOf(runtime.servicePorts().values());
        if (program == null) {
            return new SandboxSpec(runtime.id(), runtime.conversationId(), config.instance(), runtime.containerName(),
                    image, runtime.cpus(), config.sandboxBootCpus(), runtime.memoryMb(), config.sandboxPidsLimit(),
                    config.sandboxUser(), config.executorPort(), runtime.sessionKey(), runtime.plugins(), null,
                    servicePorts).withWorkspace(runtime.workspace()).withEgress(runtime.egress())
                    .withIsolation(runtime.isolation()).withExecutorServer(runtime.executorServer().orElse(null));
        }
        Map<String, String> environment = configurations.programEnvironment(runtime, program);
        SandboxProcess process = new SandboxProcess(program.command(), program.workingDir(), environment,
                program.fsGroup());
        // an image's own server gets no boot CPU allowance: the steady limit from the start
        return new SandboxSpec(runtime.id(), runtime.conversationId(), config.instance(), runtime.containerName(),
                image, runtime.cpus(), runtime.cpus(), runtime.memoryMb(), config.sandboxPidsLimit(), program.user(),
                program.mainPort(), runtime.sessionKey(), List.of(), process, servicePorts)
                .withEgress(runtime.egress()).withIsolation(runtime.isolation());
    }

    /** The image of a runtime that runs its own program, as it is: it must be on the node already. */
    private RuntimeImages.Resolution present(SandboxRuntime runtime) {
        if (images.inspect(runtime.node(), runtime.image()).isEmpty()) {
            throw new BackendException("image '" + runtime.image() + "' is not on node '" + runtime.node()
                    + "': Dockyard pulls from no registry; build or load it there first");
        }
        return new RuntimeImages.Resolution(runtime.image(), null);
    }

    /**
     * A runtime image is being built for this runtime: BUILDING_RUNTIME, and the build's output
     * goes out as progress on the runtime's event stream until the build ends.
     */
    private void building(String runtimeId, ImageBuild build) {
        journal.transition(runtimeId, RuntimeStatus.BUILDING_RUNTIME, "Building runtime image "
                + build.tags().image(build.tags().source()) + " from " + build.baseImage() + " (build " + build.id() + ")");
        build.follow(line -> statusEvents.progress(new RuntimeProgress(runtimeId, build.id(),
                build.step(), build.steps(), line)));
    }
}
