package dev.dockyard.runtime.provisioning;

import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.RuntimeStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runtimes this control plane is bringing up right now, each with a future that completes
 * when it settles (READY, ERROR or STOPPED).
 *
 * <p>A runtime is tracked from before it is recorded until its outcome is: the reconciler fails a
 * starting runtime that no provisioning works on, and must not take one in between for an orphan
 * ({@link #isInFlight}). Callers that must not hold a thread while a runtime comes up wait on
 * {@link #whenSettled} instead. Cold provisioning, warm claims and migrations all track here, and
 * each provisioning settles its runtime exactly once.
 */
@ApplicationScoped
public class RuntimesInFlight {

    @Inject
    RuntimeSecrets secrets;

    /** Completed when a runtime that is being provisioned settles (READY, ERROR or STOPPED). */
    private final Map<String, CompletableFuture<RuntimeStatus>> settling = new ConcurrentHashMap<>();

    /** In flight before it is visible: a reconciler pass in between must not take it for an orphan. */
    public CompletableFuture<RuntimeStatus> track(String runtimeId) {
        CompletableFuture<RuntimeStatus> settled = new CompletableFuture<>();
        settling.put(runtimeId, settled);
        return settled;
    }

    /**
     * Tracks the runtime unless it is tracked already: empty when another request of this control
     * plane claimed the same warm member a moment ago (a stale queue).
     */
    public Optional<CompletableFuture<RuntimeStatus>> trackUnlessTracked(String runtimeId) {
        CompletableFuture<RuntimeStatus> settled = new CompletableFuture<>();
        return settling.putIfAbsent(runtimeId, settled) == null ? Optional.of(settled) : Optional.empty();
    }

    /** The future a runtime tracked here completes when it settles; null when nothing here provisions it. */
    public CompletableFuture<RuntimeStatus> settledFuture(String runtimeId) {
        return settling.get(runtimeId);
    }

    /** A runtime whose registration did not go through is not in flight (unless tracked anew since). */
    public void untrack(String runtimeId, CompletableFuture<RuntimeStatus> settled) {
        settling.remove(runtimeId, settled);
    }

    /** A runtime that was never registered is not in flight. */
    public void untrack(String runtimeId) {
        settling.remove(runtimeId);
    }

    /**
     * The runtime is no longer in flight; a runtime that did not get READY loses the secrets
     * remembered for it, and a migration's source ({@code source}, null for none) learns how the
     * migration ended before anyone waiting on {@code settled} does.
     */
    public void settle(String runtimeId, CompletableFuture<RuntimeStatus> settled, RuntimeStatus outcome,
                       MigrationSource source) {
        settling.remove(runtimeId);
        if (outcome != RuntimeStatus.READY) {
            secrets.forget(runtimeId);
        }
        if (source != null) {
            source.settled(outcome);
        }
        settled.complete(outcome);
    }

    /** Whether this control plane is bringing the runtime up right now. */
    public boolean isInFlight(String runtimeId) {
        return settling.containsKey(runtimeId);
    }

    /**
     * Completes when a runtime that is being provisioned has settled, its hand-over included (the
     * sandbox of a runtime it replaced removed): for callers that must not hold a thread meanwhile.
     * Empty when nothing here is provisioning it.
     */
    public Optional<CompletionStage<RuntimeStatus>> whenSettled(String runtimeId) {
        return Optional.ofNullable(settling.get(runtimeId)).map(CompletableFuture::minimalCompletionStage);
    }
}
