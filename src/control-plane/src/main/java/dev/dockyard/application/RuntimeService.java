package dev.dockyard.application;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.persistence.RuntimeRepository;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusEvents;
import dev.dockyard.runtime.lifecycle.PauseResume;
import dev.dockyard.runtime.provisioning.MigrationRefusedException;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.ProvisioningStep;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A runtime's life cycle as the API drives it: provision, wait for it to settle, migrate, pause,
 * resume, delete. Provisioning itself is the {@link Provisioner}'s; this decides what may be asked
 * when (nothing while the runtime is being migrated) and waits without holding a thread.
 */
@ApplicationScoped
public class RuntimeService {

    private static final Logger LOG = Logger.getLogger(RuntimeService.class.getName());

    /** The longest {@code Prefer: wait} honoured (API.md): a wait holds no thread, only a timer. */
    public static final int MAX_WAIT_SECONDS = 600;

    @Inject
    Provisioner provisioner;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    StatusEvents statusEvents;

    @Inject
    PauseResume pauses;

    @Inject
    Deadlines deadlines;

    @Resource
    ManagedExecutorService executor;

    /**
     * Records the runtime and starts bringing it up in the background.
     *
     * @throws dev.dockyard.runtime.provisioning.ConversationBusyException when the conversation has a live runtime
     * @throws dev.dockyard.tenancy.QuotaExceededException                 when the user's quota is spent
     */
    public SandboxRuntime provision(ProvisioningRequest request) {
        return provisioner.provision(request);
    }

    /** Moves a READY runtime to another node (null: the first other one); answers the new runtime. */
    public SandboxRuntime migrate(String runtimeId, String node, ProvisioningStep failAt) {
        try {
            return provisioner.migrate(runtimeId, node, failAt);
        } catch (BackendNodes.UnknownNodeException e) {
            throw new Refused(Refused.Reason.VALIDATION, e.getMessage());
        } catch (MigrationRefusedException e) {
            throw new Refused(Refused.Reason.MIGRATION_REFUSED, e.getMessage());
        }
    }

    /**
     * The runtime once it has settled (READY, ERROR, STOPPED…) or once {@code wait} has passed,
     * whichever comes first, as it is then. Completed by the committed status change that settles
     * it, or by a timer: no thread waits.
     */
    public CompletionStage<SandboxRuntime> settled(SandboxRuntime runtime, Duration wait) {
        String id = runtime.id();
        if (!provisioner.isInFlight(id)) {
            return CompletableFuture.completedFuture(current(runtime));
        }
        CompletableFuture<SandboxRuntime> settled = new CompletableFuture<>();
        long until = System.nanoTime() + wait.toNanos();
        // status changes arrive after their transaction commits, on the committing thread: read the
        // runtime elsewhere, outside that transaction's completion
        AutoCloseable following = statusEvents.follow(id, change -> {
            if (!change.status().isStarting()) {
                handOff(() -> {
                    finishing(id, until);
                    complete(settled, runtime);
                });
            }
        });
        Runnable cancel = deadlines.after(wait, () -> complete(settled, runtime));
        settled.whenComplete((r, e) -> {
            cancel.run();
            close(following);
        });
        if (!provisioner.isInFlight(id)) {
            // settled between the first look and following it
            complete(settled, runtime);
        }
        return settled;
    }

    /**
     * After the settling change the provisioning may still hand over (remove the sandbox of the
     * runtime it replaces): answered once that is done too, as callers rely on. The Provisioner
     * offers only a blocking wait for it, so a managed thread waits for that tail (a container
     * removal), never for the provisioning itself.
     */
    private void finishing(String id, long until) {
        long left = until - System.nanoTime();
        if (left > 0) {
            provisioner.awaitSettled(id, Duration.ofNanos(left));
        }
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

    private static void close(AutoCloseable following) {
        try {
            following.close();
        } catch (Exception e) {
            LOG.log(Level.FINE, "could not stop following", e);
        }
    }

    /** Stops and removes the runtime; refused while it is being migrated or when asked to keep the workspace. */
    public void delete(String id, boolean keepWorkspace) {
        if (provisioner.isMigrating(id)) {
            // the move would bring it back on the other node once ready
            throw new Refused(Refused.Reason.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated; delete it "
                    + "once the move has ended (or delete the runtime it is moving to)");
        }
        if (keepWorkspace) {
            // said plainly rather than ignored: the workspace would be lost while the caller thinks it kept
            throw new Refused(Refused.Reason.NOT_IMPLEMENTED, "keepWorkspace=true is not supported yet: the "
                    + "workspace lives in the sandbox's container and goes with it. Download it first with GET "
                    + "/api/v1/runtimes/" + id + "/files?path=/workspace, or migrate the runtime instead of "
                    + "deleting it");
        }
        provisioner.stop(id);
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
        } catch (BackendException e) {
            throw new Refused(Refused.Reason.BACKEND_FAILED, e.getMessage());
        }
    }

    /** Thaws a PAUSED runtime, answering once it is READY again; already READY is fine. */
    public SandboxRuntime resume(String id) {
        try {
            return pauses.resume(id);
        } catch (IllegalTransitionException e) {
            throw notReady(id, e, "only a PAUSED runtime can be resumed");
        } catch (BackendException e) {
            throw new Refused(Refused.Reason.BACKEND_FAILED, e.getMessage());
        }
    }

    private static Refused notReady(String id, IllegalTransitionException e, String rule) {
        return new Refused(Refused.Reason.RUNTIME_NOT_READY, "Runtime " + id + " is " + e.from() + "; " + rule)
                .with("status", Json.createValue(e.from().name()));
    }
}
