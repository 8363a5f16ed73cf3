package dev.dockyard.executor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Makes actions idempotent under {@code X-Request-ID}: the first request with an id runs the
 * action; a retry with the same id gets the stored answer (waiting for it if the first is still
 * running) instead of running the action twice. The most recent {@value #CAPACITY} answers are kept.
 * The same id with a different action is a client error, not a replay.
 */
public final class RequestLedger {

    static final int CAPACITY = 512;

    /** A stored answer and a fingerprint of the action that produced it. */
    private record Entry(String fingerprint, CompletableFuture<String> answer) {
    }

    private final Map<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > CAPACITY;
        }
    };

    /**
     * Runs {@code action} once per request id.
     *
     * @param fingerprint what identifies the action (its JSON text)
     * @return the answer, or empty when the id was already used for a different action
     */
    public Optional<String> once(String requestId, String fingerprint, Supplier<String> action) {
        Entry entry;
        boolean mine = false;
        synchronized (entries) {
            entry = entries.get(requestId);
            if (entry == null) {
                entry = new Entry(fingerprint, new CompletableFuture<>());
                entries.put(requestId, entry);
                mine = true;
            }
        }
        if (!entry.fingerprint().equals(fingerprint)) {
            return Optional.empty();
        }
        if (mine) {
            try {
                entry.answer().complete(action.get());
            } catch (RuntimeException e) {
                // a failure is not an answer to replay: the retry may run it again
                synchronized (entries) {
                    entries.remove(requestId);
                }
                entry.answer().completeExceptionally(e);
                throw e;
            }
        }
        try {
            return Optional.of(entry.answer().get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the first request " + requestId, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the first request " + requestId + " failed: " + e.getCause().getMessage(),
                    e.getCause());
        }
    }
}
