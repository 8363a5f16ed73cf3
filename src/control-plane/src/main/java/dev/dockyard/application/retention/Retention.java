package dev.dockyard.application.retention;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * Applies the retention settings: everything older than its kind's retention is forgotten, batch
 * after batch until a batch comes back short. A pass is bounded ({@link #MAX_BATCHES} batches of
 * each kind) so that a backlog of years is worked off over several passes, not in one that holds
 * the timer.
 */
@ApplicationScoped
public class Retention {

    private static final Logger LOG = Logger.getLogger(Retention.class.getName());

    /** Batches of each kind one pass removes at most. */
    static final int MAX_BATCHES = 20;

    @Inject
    History history;

    @Inject
    RetentionSettings settings;

    @Inject
    Clock clock;

    public Retention() {
    }

    /** For tests. */
    public Retention(History history, RetentionSettings settings, Clock clock) {
        this.history = history;
        this.settings = settings;
        this.clock = clock;
    }

    /** What one pass removed. */
    public record Report(int runtimes, int events, int auditEntries) {
    }

    /** Forgets what is past its retention; returns how many rows of each kind went. */
    public Report apply() {
        Instant now = clock.instant();
        int runtimes = forget(settings.runtimes(), now, history::forgetRuntimesEndedBefore);
        int events = forget(settings.events(), now, history::forgetEventsBefore);
        int audit = forget(settings.audit(), now, history::forgetAuditBefore);
        if (runtimes + events + audit > 0) {
            LOG.info("Retention: forgot " + runtimes + " ended runtimes, " + events + " older status changes and "
                    + audit + " audit entries");
        }
        return new Report(runtimes, events, audit);
    }

    private static int forget(Optional<Duration> retention, Instant now, Function<Instant, Integer> batch) {
        if (retention.isEmpty()) {
            return 0;
        }
        Instant cutoff = now.minus(retention.get());
        int total = 0;
        for (int i = 0; i < MAX_BATCHES; i++) {
            int removed = batch.apply(cutoff);
            total += removed;
            if (removed < History.BATCH) {
                break;
            }
        }
        return total;
    }
}
