package dev.dockyard.application.idempotency;

import dev.dockyard.application.Deadlines;
import dev.dockyard.application.Refused;
import dev.dockyard.cluster.Leases;
import dev.dockyard.idempotency.IdempotentAnswer;
import dev.dockyard.persistence.DatabaseOutage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Requests carrying an {@code Idempotency-Key}: the first one claims the key, is carried out, and
 * its answer is stored; every retry with the same key and body gets that answer again, without
 * carrying the request out twice. A retry that comes while the first is still being answered
 * waits for it without holding a thread: the first's answer completes it (an event in this
 * control plane, or a look at the key every {@link #LOOK_AGAIN} when another process answers it),
 * else the wait ends after {@link #REPLAY_WAIT} with "busy".
 *
 * <p>A retry whose first is being answered in this control plane does not go to the database at
 * all: a second insert of a key whose first insert is not yet committed waits on the database's
 * lock, on a server thread, and under load twenty retries sent together held twenty threads
 * (BoundedWaitsIT). Only the first of a key in this control plane claims it in the database; a key
 * claimed by another control plane is met there as before.
 *
 * <p>A claim records the process that made it. One whose process is gone (killed mid-request: its
 * heartbeat expired, or on embedded Derby this very process's earlier self, whose first is not
 * running here) is forgotten by the next retry of the same body, which then carries the request
 * out: otherwise every retry would hear "still being answered" until the key's retention ended.
 */
@ApplicationScoped
public class IdempotentRequests {

    /** How long a retry waits for the first request's answer. */
    public static final Duration REPLAY_WAIT = Duration.ofSeconds(60);

    /** How often a retry whose first is answered by another process looks at the key while it waits. */
    static final Duration LOOK_AGAIN = Duration.ofSeconds(2);

    /** The looks of a wait: together they last {@link #REPLAY_WAIT}. */
    private static final int LOOKS = (int) (REPLAY_WAIT.toMillis() / LOOK_AGAIN.toMillis());

    /** Seconds a retry that found its first still being answered is asked to wait before the next. */
    static final int STILL_ANSWERED_RETRY_AFTER_SECONDS = 5;

    private static final Logger LOG = Logger.getLogger(IdempotentRequests.class.getName());

    @Inject
    IdempotencyKeys keys;

    @Inject
    Deadlines deadlines;

    /** Who claims keys and whether a claimer is alive; absent in unit tests that do not ask. */
    @Inject
    Leases leases;

    /**
     * Retries waiting for a first answer being made here, each completed with it, or empty when it
     * failed. A set is changed only inside the map's atomic compute for its key.
     */
    private final Map<String, Set<CompletableFuture<Optional<StoredAnswer>>>> waiting = new ConcurrentHashMap<>();

    /**
     * Keys whose first request is being carried out in this control plane, each with that
     * request's hash; an entry leaves before the first's answer is signalled, so a retry that finds
     * none looks in the database, where the answer (or the released claim) already is.
     */
    private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();

    /**
     * Claims of failed first requests that could not be forgotten (the database did not answer):
     * forgotten at the next request with a key here. Until then a retry through another control
     * plane would wait on a claim whose process lives, and hear "still being answered".
     */
    private final Set<String> releasesOwed = ConcurrentHashMap.newKeySet();

    /** The first request of a key in this control plane; compared by identity, so only its owner removes it. */
    private static final class InFlight {
        private final String requestHash;

        InFlight(String requestHash) {
            this.requestHash = requestHash;
        }

        String requestHash() {
            return requestHash;
        }
    }

    /** An answer as stored: its HTTP status and body. */
    public record StoredAnswer(int status, String body) {
    }

    /** Either the first request's own answer, or the stored one replayed. */
    public record Outcome<T>(T first, StoredAnswer replayed) {
        public boolean isReplay() {
            return replayed != null;
        }
    }

    /**
     * Carries out {@code first} once for the key {@code id}: the first caller gets its own answer,
     * later ones (same {@code requestHash}) the stored one.
     *
     * @param stored how an answer of {@code first} is stored; a failure of {@code first} forgets the
     *               claim so a retry can carry the request out
     * @return completed exceptionally with {@link Refused} when the key was used for another
     *         request, or the first is still being answered after {@link #REPLAY_WAIT}
     */
    public <T> CompletionStage<Outcome<T>> once(String id, String requestHash, Supplier<CompletionStage<T>> first,
                                                Function<T, StoredAnswer> stored) {
        releaseOwed();
        InFlight mine = new InFlight(requestHash);
        InFlight holder = inFlight.putIfAbsent(id, mine);
        if (holder != null) {
            return retryOfLocalFirst(id, requestHash, holder);
        }
        try {
            claim(id, requestHash);
        } catch (PersistenceException | TransactionalException taken) {
            inFlight.remove(id, mine);
            if (DatabaseOutage.causes(taken)) {
                // not a key someone else holds: the database did not answer (503 with Retry-After)
                throw taken;
            }
            CompletionStage<Outcome<T>> replayed = replay(id, requestHash);
            // retries that came while this one held the key here wait for a signal: the stored answer
            // is theirs too, and so is its absence (the first elsewhere failed, died or is still at
            // work), which they would otherwise sit out for the whole wait
            replayed.whenComplete((outcome, error) -> {
                if (outcome != null && outcome.isReplay()) {
                    signal(id, Optional.of(outcome.replayed()));
                } else if (error != null) {
                    signal(id, Optional.empty());
                }
            });
            return replayed;
        } catch (RuntimeException e) {
            inFlight.remove(id, mine);
            throw e;
        }
        CompletableFuture<Outcome<T>> result = new CompletableFuture<>();
        CompletionStage<T> answer;
        try {
            answer = first.get();
        } catch (RuntimeException e) {
            failed(id, mine);
            return CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((value, error) -> {
            if (error != null) {
                failed(id, mine);
                result.completeExceptionally(unwrap(error));
                return;
            }
            StoredAnswer kept;
            try {
                kept = stored.apply(value);
                keys.complete(id, kept.status(), kept.body());
            } catch (RuntimeException e) {
                failed(id, mine);
                result.completeExceptionally(e);
                return;
            }
            inFlight.remove(id, mine);
            signal(id, Optional.of(kept));
            result.complete(new Outcome<>(value, null));
        });
        return result;
    }

    /**
     * Claims the key; a claim already there whose process is gone is forgotten and the key claimed
     * again, once (a claim lost again to a live request is met by the caller as any other).
     */
    private void claim(String id, String requestHash) {
        String me = leases == null ? null : leases.me();
        try {
            keys.claim(id, requestHash, me);
        } catch (PersistenceException | TransactionalException taken) {
            if (DatabaseOutage.causes(taken) || !forgotAbandoned(id, requestHash, me)) {
                throw taken;
            }
            keys.claim(id, requestHash, me);
        }
    }

    /**
     * Whether the key's claim was unanswered and its process gone, and is forgotten now. A claim of
     * this very process ({@code me}; null when the caller may be waiting on a first of its own) was
     * made by a first that failed without forgetting it (it would be in
     * {@link #inFlight}, where the caller found none); one of an earlier start of this instance, or
     * of another instance's (restarted under its fixed id or not), is of a process that is gone.
     */
    private boolean forgotAbandoned(String id, String requestHash, String me) {
        if (leases == null) {
            return false;
        }
        Optional<IdempotentAnswer> claim = keys.find(id);
        if (claim.isEmpty() || claim.get().completed() || claim.get().claimedBy() == null
                || !claim.get().requestHash().equals(requestHash)) {
            return false;
        }
        String claimer = claim.get().claimedBy();
        boolean gone = claimer.equals(me) || !leases.alive(claimer);
        return gone && keys.forgetAbandoned(id, claimer);
    }

    /** A retry while its first is being answered here: waits for its signal, no database involved. */
    private <T> CompletionStage<Outcome<T>> retryOfLocalFirst(String id, String requestHash, InFlight holder) {
        if (!holder.requestHash().equals(requestHash)) {
            return CompletableFuture.failedFuture(reused());
        }
        CompletableFuture<Optional<StoredAnswer>> signal = new CompletableFuture<>();
        register(id, signal);
        // the first leaves inFlight before it signals: still there now means the signal is to come
        if (inFlight.get(id) != holder) {
            unregister(id, signal);
            return replay(id, requestHash);
        }
        return waitFor(id, requestHash, signal, false);
    }

    private <T> CompletionStage<Outcome<T>> replay(String id, String requestHash) {
        Optional<IdempotentAnswer> found = keys.find(id);
        CompletableFuture<Optional<StoredAnswer>> signal = null;
        if (found.isEmpty() || !found.get().completed() && found.get().requestHash().equals(requestHash)) {
            signal = new CompletableFuture<>();
            register(id, signal);
            // looked at again once registered: a first answer stored in between would never signal us
            found = keys.find(id);
        }
        if (found.isPresent() && !found.get().completed() && found.get().requestHash().equals(requestHash)) {
            return waitFor(id, requestHash, signal, true);
        }
        if (signal != null) {
            unregister(id, signal);
        }
        if (found.isEmpty()) {
            return CompletableFuture.failedFuture(firstFailed());
        }
        if (!found.get().requestHash().equals(requestHash)) {
            return CompletableFuture.failedFuture(reused());
        }
        return CompletableFuture.completedFuture(replayOf(found.get()));
    }

    /**
     * Waits for the first's answer: its signal when it is answered in this process. When the claim
     * was met in the database ({@code elsewhere}: another control plane's first, or one of a process
     * that was killed), no signal comes from there, so the key is looked at every
     * {@link #LOOK_AGAIN}: the first's stored answer is replayed, and the death of its process seen,
     * as they come, not only at the end of {@link #REPLAY_WAIT} (a fork retried after the lease
     * holder's kill in the soak of 2026-12-02 waited out 60 s per try, and its client's 3 minutes).
     */
    private <T> CompletionStage<Outcome<T>> waitFor(String id, String requestHash,
                                                     CompletableFuture<Optional<StoredAnswer>> signal,
                                                     boolean elsewhere) {
        CompletableFuture<Outcome<T>> result = new CompletableFuture<>();
        AtomicReference<Runnable> cancel = new AtomicReference<>(() -> { });
        if (elsewhere) {
            lookAgain(id, requestHash, signal, result, cancel, LOOKS);
        } else {
            cancel.set(deadlines.after(REPLAY_WAIT, () -> lastLook(id, requestHash, signal, result)));
        }
        signal.whenComplete((answer, error) -> {
            cancel.get().run();
            if (answer != null && answer.isPresent()) {
                result.complete(new Outcome<>(null, answer.get()));
            } else {
                result.completeExceptionally(firstFailed());
            }
        });
        return result;
    }

    /** Looks at the key after {@link #LOOK_AGAIN}, {@code looksLeft} times in all; the last look ends the wait. */
    private <T> void lookAgain(String id, String requestHash, CompletableFuture<Optional<StoredAnswer>> signal,
                               CompletableFuture<Outcome<T>> result, AtomicReference<Runnable> cancel, int looksLeft) {
        cancel.set(deadlines.after(LOOK_AGAIN, () -> {
            if (result.isDone()) {
                return;
            }
            if (looksLeft <= 1) {
                lastLook(id, requestHash, signal, result);
                return;
            }
            try {
                Optional<IdempotentAnswer> now = keys.find(id);
                if (now.isPresent() && now.get().completed()) {
                    unregister(id, signal);
                    answer(result, now.get(), requestHash);
                    return;
                }
                if (now.isEmpty()) {
                    // the first failed there and its claim was forgotten: the key is free
                    unregister(id, signal);
                    result.completeExceptionally(firstFailed());
                    return;
                }
                if (forgotAbandoned(id, requestHash, null)) {
                    unregister(id, signal);
                    result.completeExceptionally(abandoned());
                    return;
                }
            } catch (RuntimeException e) {
                // the database did not answer this look: the next one asks again, the last one says so
                LOG.log(Level.FINE, "Could not look at Idempotency-Key " + id + " again", e);
            }
            lookAgain(id, requestHash, signal, result, cancel, looksLeft - 1);
        }));
    }

    /** The end of the wait: one last look for the first's answer, else "gone, retry now" or "busy". */
    private <T> void lastLook(String id, String requestHash, CompletableFuture<Optional<StoredAnswer>> signal,
                              CompletableFuture<Outcome<T>> result) {
        unregister(id, signal);
        // the first may be answered by another control plane on the same database: one last look
        try {
            Optional<IdempotentAnswer> last = keys.find(id);
            if (last.isPresent() && last.get().completed()) {
                answer(result, last.get(), requestHash);
            } else if (forgotAbandoned(id, requestHash, null)) {
                // its process died while this one waited (killed mid-request; its heartbeat expired
                // meanwhile): the key is free, and the caller's next try carries the request out
                result.completeExceptionally(abandoned());
            } else {
                result.completeExceptionally(new Refused(Refused.Reason.CONVERSATION_BUSY,
                        "The first request with this Idempotency-Key is still being answered; retry later")
                        .retryAfter(STILL_ANSWERED_RETRY_AFTER_SECONDS));
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    /**
     * The stored answer for a retry of {@code requestHash}: the first's, or a refusal when the key
     * was freed meanwhile (its first abandoned) and taken by a request with another body.
     */
    private static <T> void answer(CompletableFuture<Outcome<T>> result, IdempotentAnswer stored, String requestHash) {
        if (stored.requestHash().equals(requestHash)) {
            result.complete(replayOf(stored));
        } else {
            result.completeExceptionally(reused());
        }
    }

    private static Refused abandoned() {
        return new Refused(Refused.Reason.CONVERSATION_BUSY, "The control plane that took the first request with "
                + "this Idempotency-Key is gone, and the request was not carried out: retry now").retryAfter(1);
    }

    private void register(String id, CompletableFuture<Optional<StoredAnswer>> signal) {
        waiting.compute(id, (key, set) -> {
            Set<CompletableFuture<Optional<StoredAnswer>>> all = set == null ? new HashSet<>() : set;
            all.add(signal);
            return all;
        });
    }

    private void unregister(String id, CompletableFuture<Optional<StoredAnswer>> signal) {
        waiting.computeIfPresent(id, (key, set) -> {
            set.remove(signal);
            return set.isEmpty() ? null : set;
        });
    }

    /**
     * A first request failed: its claim is forgotten so that a retry carries the request out. Never
     * throws: its caller still owes its own caller an answer (a release that threw there left the
     * request without one until a backstop answered 500). A release the database did not take is
     * owed, and made at the next request with a key.
     */
    private void failed(String id, InFlight mine) {
        try {
            keys.release(id);
        } catch (RuntimeException e) {
            releasesOwed.add(id);
            LOG.log(Level.WARNING, "The claim of a failed idempotent request could not be forgotten yet ("
                    + e.getClass().getSimpleName() + "); it is retried with the next request carrying a key");
        } finally {
            inFlight.remove(id, mine);
            signal(id, Optional.empty());
        }
    }

    /** The owed releases, each tried once; one the database still does not take stays owed. */
    private void releaseOwed() {
        for (String id : List.copyOf(releasesOwed)) {
            // taken out first: of two requests at once, one makes it
            if (!releasesOwed.remove(id) || inFlight.containsKey(id)) {
                // (a retry of that key being carried out here again holds a claim of its own)
                continue;
            }
            try {
                keys.release(id);
            } catch (RuntimeException stillDown) {
                releasesOwed.add(id);
                return;
            }
        }
    }

    private void signal(String id, Optional<StoredAnswer> answer) {
        // taken out of the map whole: nobody adds to a set once it has left it
        Set<CompletableFuture<Optional<StoredAnswer>>> signals = waiting.remove(id);
        if (signals != null) {
            signals.forEach(signal -> signal.complete(answer));
        }
    }

    private static <T> Outcome<T> replayOf(IdempotentAnswer answer) {
        return new Outcome<>(null, new StoredAnswer(answer.status(), answer.body()));
    }

    private static Refused reused() {
        return new Refused(Refused.Reason.IDEMPOTENCY_KEY_REUSED,
                "Idempotency-Key was already used for a different request");
    }

    private static Refused firstFailed() {
        return new Refused(Refused.Reason.CONVERSATION_BUSY,
                "The first request with this Idempotency-Key failed before it was answered; retry it").retryAfter(1);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** Waiting retries right now (for tests and metrics). */
    int waitingKeys() {
        return waiting.size();
    }
}
