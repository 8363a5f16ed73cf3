package dev.dockyard.backend.remote;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;
import org.eclipse.microprofile.faulttolerance.Retry;

/**
 * Calls to remote nodes that may be repeated without doing anything twice, retried by MicroProfile
 * Fault Tolerance when the remote gave no answer ({@link RemoteUnreachableException}): up to three
 * more tries, 500 ms apart with up to 250 ms of jitter, for at most 20 s. Tune with MP Config, e.g.
 * {@code dev.dockyard.backend.remote.RemoteCalls/idempotent/Retry/maxRetries}. A CDI bean so the
 * interceptor applies; it opens no transaction.
 */
@ApplicationScoped
public class RemoteCalls {

    /** Runs {@code call}, again on no answer; only for calls that are safe to repeat. */
    @Retry(maxRetries = 3, delay = 500, delayUnit = ChronoUnit.MILLIS, jitter = 250,
            maxDuration = 20, durationUnit = ChronoUnit.SECONDS, retryOn = RemoteUnreachableException.class)
    public <T> T idempotent(Supplier<T> call) {
        return call.get();
    }

    /** Runs {@code call} once, for what must not be repeated blindly. */
    public <T> T once(Supplier<T> call) {
        return call.get();
    }
}
