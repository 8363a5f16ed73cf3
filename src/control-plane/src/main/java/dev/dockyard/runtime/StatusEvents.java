package dev.dockyard.runtime;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes every committed status change to whoever follows the runtime (the SSE stream). Changes
 * are fired as CDI events inside the journal's transaction and delivered only after it commits:
 * nobody ever hears of a transition that was rolled back.
 */
@ApplicationScoped
public class StatusEvents {

    private static final Logger LOG = Logger.getLogger(StatusEvents.class.getName());

    private final Map<String, Set<Consumer<StatusChange>>> followers = new ConcurrentHashMap<>();
    private final Map<String, Set<Consumer<RuntimeProgress>>> progressFollowers = new ConcurrentHashMap<>();
    /** Followers of every runtime's changes (the console's list, GET /api/v1/runtimes/events). */
    private final Set<Consumer<StatusChange>> everyRuntime = new CopyOnWriteArraySet<>();

    void committed(@Observes(during = TransactionPhase.AFTER_SUCCESS) StatusChange change) {
        deliver(followers.get(change.runtimeId()), change);
        deliver(everyRuntime, change);
    }

    private static <T> void deliver(Set<Consumer<T>> listeners, T event) {
        if (listeners == null) {
            return;
        }
        for (Consumer<T> listener : listeners) {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "a follower went away", e);
                listeners.remove(listener);
            }
        }
    }

    /** Progress is not a transition: delivered at once, to whoever follows the runtime now. */
    public void progress(RuntimeProgress progress) {
        deliver(progressFollowers.get(progress.runtimeId()), progress);
    }

    /** Follows a runtime's changes until the returned handle is closed. */
    public AutoCloseable follow(String runtimeId, Consumer<StatusChange> listener) {
        return follow(followers, runtimeId, listener);
    }

    /** Follows every runtime's changes until the returned handle is closed. */
    public AutoCloseable followAll(Consumer<StatusChange> listener) {
        everyRuntime.add(listener);
        return () -> everyRuntime.remove(listener);
    }

    /** Follows a runtime's progress (image builds) until the returned handle is closed. */
    public AutoCloseable followProgress(String runtimeId, Consumer<RuntimeProgress> listener) {
        return follow(progressFollowers, runtimeId, listener);
    }

    private static <T> AutoCloseable follow(Map<String, Set<Consumer<T>>> all, String runtimeId, Consumer<T> listener) {
        all.computeIfAbsent(runtimeId, id -> new CopyOnWriteArraySet<>()).add(listener);
        return () -> all.computeIfPresent(runtimeId, (id, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }
}
