package dev.dockyard.runtime.reconciliation;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * When the reconciler's timer last turned: a pass ended, or it found another instance holding the
 * reconciler's lease. {@link ReconcilerLiveness} reads the age of the last turn; a pass that hangs,
 * or a timer that stopped firing, lets it grow.
 */
@ApplicationScoped
public class ReconcilerTurns {

    private final AtomicReference<Instant> last = new AtomicReference<>();

    @Inject
    Clock clock;

    public ReconcilerTurns() {
    }

    /** For tests: the clock a container would inject. */
    public ReconcilerTurns(Clock clock) {
        this.clock = clock;
    }

    /** The timer turned now. */
    public void turned() {
        last.set(clock.instant());
    }

    /** The last turn; before the first one, when this record began (the server's start, near enough). */
    public Instant last() {
        return last.updateAndGet(t -> t == null ? clock.instant() : t);
    }
}
