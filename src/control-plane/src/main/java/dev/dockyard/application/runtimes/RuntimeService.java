package dev.dockyard.application.runtimes;

import dev.dockyard.application.Deadlines;
import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.application.images.BrowserVariant;
import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.application.workspaces.Workspaces;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import dev.dockyard.backend.SandboxBusyException;
import dev.dockyard.backend.SandboxNotRunningException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.placement.NodeAccess;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeGates;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.lifecycle.Hibernation;
import dev.dockyard.runtime.lifecycle.PauseResume;
import dev.dockyard.runtime.provisioning.ConversationBusyException;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.runtime.provisioning.MigrationRefusedException;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.ProvisioningStep;
import dev.dockyard.tenancy.Role;
import dev.dockyard.workspace.KeptWorkspace;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A runtime's life cycle as the API drives it: provision, wait for it to settle, migrate, pause,
 * resume, delete. Provisioning itself is the {@link Provisioner}'s; this decides what may be asked
 * when (nothing while the runtime is being migrated) and waits without holding a thread.
 */
@ApplicationScoped
public class RuntimeService {


    /** The longest {@code Prefer: wait} honoured (API.md): a wait holds no thread, only a timer. */
    public static final int MAX_WAIT_SECONDS = 600;

    @Inject
    Provisioner provisioner;

    @Inject
    RuntimeRepository runtimes;


    @Inject
    PauseResume pauses;

    @Inject
    ExecutorOutages outages = ExecutorOutages.unobserved();

    @Inject
    ProvisioningJournal journal;

    /** The time a runtime resumed after its end time gets: E2B's default timeout, as its connect gives. */
    static final Duration END_AFTER_RESUME = Duration.ofSeconds(300);

    @Inject
    Hibernation hibernation;

    @Inject
    Workspaces workspaces;

    @Inject
    Snapshots snapshots;

    @Inject
    Deadlines deadlines;

    @Resource
    ManagedExecutorService executor;

    @Inject
    ImageAccess images;

    @Inject
    BrowserVariant browserVariant;

    @Inject
    NodeAccess nodeAccess;

    @Inject
    BackendNodes nodes;

    /**
     * Forks {@code source}: a snapshot of it, then a second runtime for {@code conversationId} started
     * from that snapshot with the source's settings ({@link Snapshots#forkRequest}). Answers the new
     * runtime, being provisioned.
     */
    public SandboxRuntime fork(SandboxRuntime source, String conversationId, String userId, Role role) {
        // before the source is frozen and copied for nothing (the provision checks again, for races)
        Optional<SandboxRuntime> live = runtimes.findLive(userId, conversationId);
        if (live.isPresent()) {
            throw new ConversationBusyException(live.get());
        }
        ProvisioningRequest request = snapshots.forkRequest(source, conversationId, userId, role);
        try {
            return provision(request);
        } catch (RuntimeException e) {
            // refused before anything started from it: the snapshot made for it would only be a
            // stray, counted against the user's quota
            try {
                snapshots.delete(request.workspace().fromSnapshot(), userId, true);
            } catch (RuntimeException removing) {
                e.addSuppressed(removing);
            }
            throw e;
        }
    }

    /**
     * Records the runtime and starts bringing it up in the background.
     *
     * @throws dev.dockyard.runtime.provisioning.ConversationBusyException when the conversation has a live runtime
     * @throws dev.dockyard.tenancy.QuotaExceededException                 when the user's quota is spent
     */
    public SandboxRuntime provision(ProvisioningRequest request) {
        // a kept workspace or a snapshot to start from, resolved for the caller (claimed, for a workspace)
        Workspaces.Resolved resolved = workspaces.resolve(request, snapshots);
        SandboxRuntime runtime;
        try {
            ProvisioningRequest asked = requireImage(resolved.request());
            runtime = provisioner.provision(asked);
        } catch (BackendNodes.UnknownNodeException e) {
            workspaces.claimed(resolved, null);
            throw new Refused(Refused.Reason.VALIDATION, e.getMessage());
        } catch (RuntimeException e) {
            workspaces.claimed(resolved, null);
            throw e;
        }
        workspaces.claimed(resolved, runtime.id());
        return runtime;
    }

    /**
     * The image must be the caller's to use and on the node (an engine never pulls): refused now, 404,
     * rather than an ERROR later. A snapshot's image (a fork, {@code fromSnapshot}) was the caller's
     * already: {@link Workspaces#resolve} gave it only for the caller's own snapshot. Placement may still
     * choose another node than the named or default one asked here; a node that cannot be asked now
     * is unavailable (503), as placement would say. Answers the request to provision: the one asked,
     * or for the browser's image variant a node lacks, the build of it ({@link BrowserVariant}).
     */
    private ProvisioningRequest requireImage(ProvisioningRequest asked) {
        if (asked.workspace().fromSnapshot() != null) {
            return asked;
        }
        String node = asked.workspace().node();
        if (node != null) {
            // before its images are looked at: a node the caller may not use tells them nothing of them,
            // and one that cannot give the isolation asked for says so (400), whatever images it has
            nodeAccess.require(node, asked.userId(), asked.role());
            nodes.requireIsolation(node, asked.isolation());
        }
        // the browser's image variant, built on first use on a node that lacks it
        ProvisioningRequest request = browserVariant.onItsNode(asked);
        try {
            images.require(node, request.image(), request.userId(), request.role() == Role.ADMIN);
        } catch (BackendException e) {
            throw new PlacementRefusedException(PlacementRefusedException.Reason.NODE_UNHEALTHY, node,
                    (node == null ? "the default node" : "backend node '" + node + "'") + " could not be asked for "
                            + "image '" + request.image() + "': "
                            + e.getMessage()).retryAfter(EngineUnreachableException.RETRY_AFTER_SECONDS);
        }
        return request;
    }

    /**
     * Moves a READY runtime to another node (null: the first other one open to its owner and the
     * caller); answers the new runtime.
     */
    public SandboxRuntime migrate(String runtimeId, String node, ProvisioningStep failAt, String callerId,
                                  Role callerRole) {
        try {
            return provisioner.migrate(runtimeId, node, failAt, callerId, callerRole);
        } catch (BackendNodes.UnknownNodeException e) {
            throw new Refused(Refused.Reason.VALIDATION, e.getMessage());
        } catch (MigrationRefusedException e) {
            throw new Refused(Refused.Reason.MIGRATION_REFUSED, e.getMessage());
        }
    }

    /**
     * The runtime once it has settled (READY, ERROR, STOPPED…, the hand-over from a runtime it
     * replaces included) or once {@code wait} has passed, whichever comes first, as it is then.
     * Completed by the provisioning as it settles, or by a timer: no thread waits.
     */
    public CompletionStage<SandboxRuntime> settled(SandboxRuntime runtime, Duration wait) {
        Optional<CompletionStage<RuntimeStatus>> settling = provisioner.whenSettled(runtime.id());
        if (settling.isEmpty()) {
            return CompletableFuture.completedFuture(current(runtime));
        }
        CompletableFuture<SandboxRuntime> settled = new CompletableFuture<>();
        // completed on the provisioning's own thread: read the runtime on another
        settling.get().whenComplete((status, failure) -> handOff(() -> complete(settled, runtime)));
        Runnable cancel = deadlines.after(wait, () -> complete(settled, runtime));
        settled.whenComplete((r, e) -> cancel.run());
        return settled;
    }

    void handOff(Runnable task) {
        executor.execute(task);
    }

    private void complete(CompletableFuture<SandboxRuntime> settled, SandboxRuntime runtime) {
        if (settled.isDone()) {
            return;
        }
        try {
            settled.complete(current(runtime));
        } catch (RuntimeException e) {
            settled.completeExceptionally(e);
        }
    }

    private SandboxRuntime current(SandboxRuntime runtime) {
        return runtimes.find(runtime.id()).orElse(runtime);
    }

    /**
     * Stops and removes the runtime; refused while it is being migrated. With {@code keepWorkspace}
     * its workspace stays, owned by its user (see {@link Workspaces#keep}); without, a kept
     * workspace it mounted goes with it.
     */
    public void delete(String id, boolean keepWorkspace) {
        if (provisioner.isMigrating(id)) {
            // the move would bring it back on the other node once ready
            throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated; delete it "
                    + "once the move has ended (or delete the runtime it is moving to)");
        }
        if (keepWorkspace) {
            deleteKeepingWorkspace(id);
            return;
        }
        workspaces.deletedWithRuntime(provisioner.stop(id));
    }

    /** Deletes a runtime, keeping its workspace: answers the kept workspace. */
    public KeptWorkspace deleteKeepingWorkspace(String id) {
        if (provisioner.isMigrating(id)) {
            throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated; delete it "
                    + "once the move has ended");
        }
        return workspaces.keep(runtimes.find(id).orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND,
                "No runtime " + id)));
    }

    /** Freezes a READY runtime; already PAUSED is fine. */
    public SandboxRuntime pause(String id) {
        if (provisioner.isMigrating(id)) {
            throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated");
        }
        try {
            return pauses.pause(id);
        } catch (IllegalTransitionException e) {
            throw notReady(id, e, "only a READY runtime can be paused");
        } catch (SandboxNotRunningException e) {
            throw outages.stopped(id, "paused");
        } catch (SandboxBusyException e) {
            throw ExecutorOutages.tooBusyToFreeze(id, "paused", e);
        } catch (BackendException e) {
            throw Refused.ofBackend(e, e.getMessage());
        }
    }

    /**
     * Stops a PAUSED runtime's container to free its memory, keeping its files; already
     * HIBERNATED is fine. Woken by {@link #resume} (or, unless the user paused it, by an action).
     */
    public SandboxRuntime hibernate(String id) {
        SandboxRuntime runtime = runtimes.find(id).orElseThrow(() -> new Refused(Refused.Reason.NOT_FOUND,
                "No runtime " + id));
        if (runtime.program().isPresent()) {
            throw new Refused(Refused.Reason.NOT_IMPLEMENTED, "Runtime " + id + " runs its image's own program: "
                    + "hibernation (a cold boot of Dockyard's executor on waking) is for executor runtimes; pause it");
        }
        try {
            return hibernation.hibernate(id);
        } catch (RuntimeGates.RuntimeBusyException e) {
            throw new Refused(e.migrating() ? Refused.Reason.RUNTIME_MIGRATING : Refused.Reason.CONFLICT,
                    e.getMessage());
        } catch (IllegalTransitionException e) {
            throw notReady(id, e, "only a PAUSED runtime can be hibernated: pause it first");
        } catch (BackendException e) {
            throw Refused.ofBackend(e, e.getMessage());
        }
    }

    /**
     * Thaws a PAUSED runtime (wakes a HIBERNATED one), answering once it is READY again; already READY
     * is fine. One paused at its end time (an E2B sandbox's timeout) gets {@link #END_AFTER_RESUME}
     * more first, as E2B's connect gives it, or the next sweep would pause it again at once.
     */
    public SandboxRuntime resume(String id) {
        Instant now = Instant.now();
        runtimes.find(id).filter(r -> r.endsAt().filter(end -> !now.isBefore(end)).isPresent())
                .ifPresent(r -> journal.update(id, rt -> rt.endsAt(now.plus(END_AFTER_RESUME))));
        try {
            return pauses.resume(id);
        } catch (IllegalTransitionException e) {
            throw notReady(id, e, "only a PAUSED or HIBERNATED runtime can be resumed");
        } catch (SandboxNotRunningException e) {
            throw outages.stopped(id, "resumed");
        } catch (BackendException e) {
            throw Refused.ofBackend(e, e.getMessage());
        }
    }

    private static Refused notReady(String id, IllegalTransitionException e, String rule) {
        return new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + id + " is " + e.from() + "; " + rule)
                .with("runtimeStatus", Jsonp.createValue(e.from().name()));
    }
}
