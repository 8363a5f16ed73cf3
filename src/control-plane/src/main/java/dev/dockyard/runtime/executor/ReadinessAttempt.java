package dev.dockyard.runtime.executor;

import dev.dockyard.backend.RuntimeBackend;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** The state of one wait for a sandbox to become ready: where, until when, how many tries so far. */
public final class ReadinessAttempt {

    /** Asking the backend costs more than a refused connection: only every so many tries. */
    private static final int INSPECT_EVERY = 10;

    private final RuntimeBackend backend;
    private final String sandboxName;
    private final URI executor;
    private final String sessionKey;
    private final Instant deadline;
    private final Duration timeout;
    private final Clock clock;
    private final boolean anyHttpAnswer;
    private int tries;

    public ReadinessAttempt(RuntimeBackend backend, String sandboxName, URI executor,
                            String sessionKey, Duration timeout, Clock clock) {
        this(backend, sandboxName, executor, sessionKey, timeout, clock, false);
    }

    /**
     * @param anyHttpAnswer ready once the main port answers HTTP at all (a sandbox of another
     *                      image running its own server), rather than once the executor's
     *                      {@code /ready} says so
     */
    public ReadinessAttempt(RuntimeBackend backend, String sandboxName, URI executor,
                            String sessionKey, Duration timeout, Clock clock, boolean anyHttpAnswer) {
        this.anyHttpAnswer = anyHttpAnswer;
        this.backend = backend;
        this.sandboxName = sandboxName;
        this.executor = executor;
        this.sessionKey = sessionKey;
        this.timeout = timeout;
        this.deadline = clock.instant().plus(timeout);
        this.clock = clock;
    }

    void nextTry() {
        tries++;
    }

    public boolean expired() {
        return !clock.instant().isBefore(deadline);
    }

    boolean timeToInspect() {
        return tries % INSPECT_EVERY == 0;
    }

    /** The backend (node) running the sandbox, asked whether it died. */
    RuntimeBackend backend() {
        return backend;
    }

    String sandboxName() {
        return sandboxName;
    }

    URI executor() {
        return executor;
    }

    String sessionKey() {
        return sessionKey;
    }

    boolean anyHttpAnswer() {
        return anyHttpAnswer;
    }

    Duration timeout() {
        return timeout;
    }

    int tries() {
        return tries;
    }
}
