package dev.dockyard.runtime.provisioning;

import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.pool.PoolRepository;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.PauseReason;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.QuotaExceededException;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Provisioning's record of intent and outcome: every method is one short transaction of its own
 * ({@code REQUIRES_NEW}), so no transaction is ever open while the backend is called, and a status
 * change commits before anyone acts on it. Every message it records is first cleared of the
 * runtime's secrets ({@link RuntimeSecrets}): messages are stored, listed and streamed.
 */
@ApplicationScoped
public class ProvisioningJournal {

    @Inject
    RuntimeRepository runtimes;

    @Inject
    Clock clock;

    @Inject
    Accounts accounts;

    @Inject
    SandboxCompensation compensation;

    @Inject
    RuntimeSecrets secrets;

    @Inject
    PoolRepository pools;

    /**
     * The outcome of a registration: the new runtime, or the conversation's live runtime that
     * prevented it, or the quota it would have exceeded. Answers, not exceptions: a conflict or a
     * full quota is an everyday outcome and must not leave incident reports behind.
     */
    public record Registration(SandboxRuntime runtime, SandboxRuntime existing, QuotaExceededException overQuota,
                               boolean claimLost) {
        public Registration(SandboxRuntime runtime, SandboxRuntime existing, QuotaExceededException overQuota) {
            this(runtime, existing, overQuota, false);
        }

        public boolean admitted() {
            return existing == null && overQuota == null && !claimLost;
        }
    }

    /** {@link RuntimeRepository#forgetEnded} in a transaction of its own: a deleted user's runtime history goes. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int forgetEnded(String userId) {
        return runtimes.forgetEnded(userId);
    }

    /**
     * Stores a new runtime in STARTING_RUNTIME if the conversation has no live one and the user's
     * quota admits it; the user's row is locked for the check, so parallel requests queue here.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Registration register(SandboxRuntime runtime, Role role, boolean replace) {
        return registerNow(runtime, role, replace, null);
    }

    /**
     * The same for a runtime that takes over the warm sandbox of pool member {@code memberId}
     * (the runtime has its id): the member's row is deleted in this transaction, only if it is
     * still READY and of the requested {@code shape}, so that the claim, the quota and the conversation hold together or not at all.
     * {@link Registration#claimLost()} when another claim (or a drain) took the member first.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Registration registerClaim(SandboxRuntime runtime, Role role, boolean replace, String shape) {
        return registerNow(runtime, role, replace, shape);
    }

    /** One registration of a batch: a runtime, and the warm member's shape when it claims one. */
    public record Admission(SandboxRuntime runtime, Role role, boolean replace, String claimedShape) {
    }

    /**
     * Registers runtimes of one user in one transaction, in order, as {@link #register} and
     * {@link #registerClaim} would one by one: the user's row is locked and their use counted
     * once, each admitted runtime counted before the next is checked, one commit for all (see
     * {@link Admissions}). A runtime that loses its conversation to an earlier one of the batch
     * finds it live, as it would after that one's commit. Any exception rolls the whole batch back.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Registration> registerAll(List<Admission> batch) {
        List<Registration> registrations = new ArrayList<>();
        Accounts.Allowance allowance = null;
        String user = null;
        for (Admission admission : batch) {
            if (allowance == null || !admission.runtime().userId().equals(user)) {
                user = admission.runtime().userId();
                allowance = accounts.allowance(user);
            }
            registrations.add(registerNow(admission.runtime(), allowance, admission.replace(),
                    admission.claimedShape()));
        }
        return registrations;
    }

    private Registration registerNow(SandboxRuntime runtime, Role role, boolean replace, String claimedShape) {
        return registerNow(runtime, accounts.allowance(runtime.userId()), replace, claimedShape);
    }

    private Registration registerNow(SandboxRuntime runtime, Accounts.Allowance allowance, boolean replace,
                                     String claimedShape) {
        try {
            allowance.take(runtime.cpus(), runtime.memoryMb());
        } catch (QuotaExceededException e) {
            return new Registration(null, null, e);
        }
        Optional<SandboxRuntime> live = runtimes.findLive(runtime.userId(), runtime.conversationId());
        if (live.isPresent() && !replace) {
            allowance.giveBack(runtime.cpus(), runtime.memoryMb());
            return new Registration(null, live.get(), null);
        }
        if (live.isPresent()) {
            runtime.replacing(live.get().id());
        } else {
            // the same object may come again after its batch rolled back (Admissions): what it was
            // to replace then may have ended since, and it must hold its conversation itself now
            runtime.replacing(null);
            runtime.takeConversation();
        }
        if (claimedShape != null && !pools.claim(runtime.id(), claimedShape)) {
            allowance.giveBack(runtime.cpus(), runtime.memoryMb());
            return new Registration(null, null, null, true);
        }
        runtimes.add(runtime, new StatusChange(runtime.id(), runtime.status(), runtime.statusMessage(),
                runtime.createdAt()));
        return new Registration(runtime, null, null);
    }

    /**
     * Stores a migration's new runtime beside the one it moves, which must be READY and must not be
     * moving already (checked under its row lock, so concurrent migrations of one runtime queue
     * here and all but one are refused). A migration takes no quota of its own: it moves a runtime.
     * Returns why it was refused, or null once registered: an answer, not an exception, like
     * {@link #register}.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public String registerMigration(SandboxRuntime migrated, String sourceId, String sourceNode, String targetNode) {
        SandboxRuntime source = locked(sourceId);
        if (source.status() != RuntimeStatus.READY) {
            return "runtime " + sourceId + " is " + source.status() + "; only a READY runtime can be migrated";
        }
        if (runtimes.replacementOf(sourceId).isPresent()) {
            return "runtime " + sourceId + " is being replaced or migrated already";
        }
        migrated.replacing(sourceId);
        String message = "Migrating runtime " + sourceId + " from node '" + sourceNode + "' to node '" + targetNode + "'";
        migrated.requestedAs(message);
        runtimes.add(migrated, new StatusChange(migrated.id(), migrated.status(), message, migrated.createdAt()));
        return null;
    }

    /**
     * A replacement became READY: in one transaction the runtime it replaces stops (if still live)
     * and the replacement takes the conversation over. Returns the stopped runtime, whose sandbox
     * is to be removed, if there was one.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<SandboxRuntime> readyAndTakeOver(String id, String message) {
        return takeOver(locked(id), message);
    }

    /**
     * A runtime in a claimed warm sandbox, its configuration injected: RUNTIME_STARTED and READY
     * in one transaction (the sandbox was started long before), with the hand-over of
     * {@link #readyAndTakeOver}.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<SandboxRuntime> startedAndReady(String id, String startedMessage, String readyMessage) {
        SandboxRuntime runtime = locked(id);
        record(runtime, RuntimeStatus.RUNTIME_STARTED, startedMessage);
        return takeOver(runtime, readyMessage);
    }

    private Optional<SandboxRuntime> takeOver(SandboxRuntime runtime, String message) {
        String id = runtime.id();
        SandboxRuntime removed = null;
        if (runtime.replaces() != null) {
            Optional<SandboxRuntime> old = runtimes.lock(runtime.replaces());
            if (old.isPresent() && old.get().status().isLive()) {
                record(old.get(), RuntimeStatus.STOPPED, "Replaced by " + id);
                removed = old.get();
                // the old row gives the conversation up before the new one takes it (unique column)
                runtimes.flush();
            }
        }
        record(runtime, RuntimeStatus.READY, message);
        if (runtime.replaces() != null) {
            runtime.takeConversation();
        }
        return Optional.ofNullable(removed);
    }

    /** The live runtime of a conversation, read in a transaction of its own (e.g. after a lost race). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<SandboxRuntime> live(String userId, String conversationId) {
        return runtimes.findLive(userId, conversationId);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<SandboxRuntime> find(String id) {
        return runtimes.find(id);
    }

    /**
     * Moves the runtime to {@code next}, first applying {@code change} to it (e.g. recording where
     * its container is) in the same transaction.
     *
     * @throws dev.dockyard.runtime.IllegalTransitionException when the life cycle refuses, notably
     *                                                         after the runtime was stopped
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime transition(String id, RuntimeStatus next, String message, Consumer<SandboxRuntime> change) {
        return apply(id, next, message, change);
    }

    /**
     * The same, for the first record after the backend created a sandbox: should this transaction
     * roll back (for any reason, including {@code rollback} for fault injection), the sandbox it
     * describes is removed as the transaction completes, so it cannot outlive its record.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime transition(String id, RuntimeStatus next, String message, Consumer<SandboxRuntime> change,
                                     RuntimeBackend backend, String sandboxName,
                                     boolean rollback) {
        compensation.removeOnRollback(backend, sandboxName);
        SandboxRuntime runtime = apply(id, next, message, change);
        if (rollback) {
            throw new PersistenceException("fault injected at step 'record': the transaction "
                    + "recording the started sandbox rolls back");
        }
        return runtime;
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime transition(String id, RuntimeStatus next, String message) {
        return apply(id, next, message, r -> { });
    }

    /** Within the caller's transaction: lock, change, move to {@code next}, record the change. */
    private SandboxRuntime apply(String id, RuntimeStatus next, String message, Consumer<SandboxRuntime> change) {
        SandboxRuntime runtime = locked(id);
        change.accept(runtime);
        record(runtime, next, message);
        return runtime;
    }

    /** Within the caller's transaction: the transition, its message cleared of the runtime's secrets. */
    private void record(SandboxRuntime runtime, RuntimeStatus next, String message) {
        runtimes.record(runtime.transitionTo(next, secrets.redact(runtime, message), clock.instant()));
        if (!next.isLive()) {
            forgetSecretsOnCommit(runtime.id());
        }
    }

    /**
     * The runtime's secrets are forgotten once its end is committed, not before: a transaction
     * rolled back (a deadlock victim run again by {@link LockConflicts}, a failed take-over) leaves
     * the runtime live, and its later messages must still be redacted.
     */
    private void forgetSecretsOnCommit(String runtimeId) {
        compensation.afterCommit(() -> secrets.forget(runtimeId));
    }

    private SandboxRuntime locked(String id) {
        return runtimes.lock(id)
                .orElseThrow(() -> new IllegalStateException("runtime " + id + " vanished from the database"));
    }

    /** Every live runtime, read in a transaction of its own. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<SandboxRuntime> live() {
        return runtimes.live();
    }

    /**
     * Moves a runtime to {@code next} only if it is still in one of {@code expected}: the
     * reconciler's view may be stale by the time it acts. Returns whether it moved.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean transitionIf(String id, Set<RuntimeStatus> expected, RuntimeStatus next, String message) {
        Optional<SandboxRuntime> found = runtimes.lock(id);
        if (found.isEmpty() || !expected.contains(found.get().status())) {
            return false;
        }
        record(found.get(), next, message);
        return true;
    }

    /** The same, first applying {@code change} to it (e.g. why it is paused) in the same transaction. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean transitionIf(String id, Set<RuntimeStatus> expected, RuntimeStatus next, String message,
                                Consumer<SandboxRuntime> change) {
        Optional<SandboxRuntime> found = runtimes.lock(id);
        if (found.isEmpty() || !expected.contains(found.get().status())) {
            return false;
        }
        change.accept(found.get());
        record(found.get(), next, message);
        return true;
    }

    /** Applies {@code change} to the runtime without a status change (e.g. why it is paused); answers it. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime update(String id, Consumer<SandboxRuntime> change) {
        SandboxRuntime runtime = locked(id);
        change.accept(runtime);
        return runtime;
    }

    /** Persists when the runtime was last used (the idle lifecycle's coarse steps); no status change. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void activeAt(String id, Instant at) {
        runtimes.lock(id).ifPresent(r -> r.activeAt(at));
    }

    /**
     * A disconnected runtime whose sandbox is back: moves it to {@code next} (READY or PAUSED)
     * with the executor's current address, only if it is still disconnected. Returns whether it moved.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean reconnect(String id, RuntimeStatus next, String executorUrl, String message) {
        return reconnect(id, next, executorUrl, message, false);
    }

    /**
     * The same; {@code asleepUnlessPausedOnRequest}: a PAUSED reconnection whose sandbox its node
     * paused on its own is recorded as asleep ({@link PauseReason#IDLE}: its next action wakes it)
     * unless the runtime had been paused on request before it was disconnected.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean reconnect(String id, RuntimeStatus next, String executorUrl, String message,
                             boolean asleepUnlessPausedOnRequest) {
        Optional<SandboxRuntime> found = runtimes.lock(id);
        if (found.isEmpty() || found.get().status() != RuntimeStatus.ERROR_RUNTIME_DISCONNECTED) {
            return false;
        }
        SandboxRuntime runtime = found.get();
        runtime.reachableAt(executorUrl);
        if (asleepUnlessPausedOnRequest && next == RuntimeStatus.PAUSED && !runtime.pausedOnRequest()) {
            runtime.pausedFor(PauseReason.IDLE);
        }
        record(runtime, next, message);
        return true;
    }

    /** Gives the runtime the service key its caller chose (see {@link SandboxRuntime#useServiceKey}). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime useServiceKey(String id, String chosen) {
        SandboxRuntime runtime = locked(id);
        runtime.useServiceKey(chosen);
        return runtime;
    }

    /** Replaces the runtime's service key: the one handed out before stops working at once. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime renewServiceKey(String id) {
        SandboxRuntime runtime = locked(id);
        runtime.renewServiceKey();
        return runtime;
    }

    /** Stops the runtime unless it is stopped already; returns it either way. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public SandboxRuntime stop(String id, String message) {
        SandboxRuntime runtime = locked(id);
        if (runtime.status() != RuntimeStatus.STOPPED) {
            record(runtime, RuntimeStatus.STOPPED, message);
        }
        return runtime;
    }
}
