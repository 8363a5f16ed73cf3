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

    void committed(@Observes(during = TransactionPhase.AFTER_SUCCESS) StatusChange change) {
        Set<Consumer<StatusChange>> listeners = followers.get(change.runtimeId());
        if (listeners == null) {
            return;
        }
        for (Consumer<StatusChange> listener : listeners) {
            try {
                listener.accept(change);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "a follower of " + change.runtimeId() + " went away", e);
                listeners.remove(listener);
            }
        }
    }

    /** Follows a runtime's changes until the returned handle is closed. */
    public AutoCloseable follow(String runtimeId, Consumer<StatusChange> listener) {
        followers.computeIfAbsent(runtimeId, id -> new CopyOnWriteArraySet<>()).add(listener);
        return () -> followers.computeIfPresent(runtimeId, (id, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }
}
