package dev.dockyard.backend.remote;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.faulttolerance.Retry;

/**
 * Calls to remote nodes that may be repeated without doing anything twice, retried by MicroProfile
 * Fault Tolerance when the remote gave no answer ({@link RemoteUnreachableException}: refused,
 * reset, or no answer within the node's {@code call-timeout}).
 *
 * <p>Up to {@value #MAX_RETRIES} more tries, {@value #DELAY_MS} ms apart with up to
 * {@value #JITTER_MS} ms of jitter either way (MicroProfile Fault Tolerance has a fixed delay, no
 * growing backoff: the jitter keeps the retries of many calls from arriving together). A remote
 * that refuses connections costs a caller about {@value #MAX_RETRIES} × 1.5 s at most; the delay
 * bridges a reset connection or a proxy in between that restarts, not a control plane that is down
 * (its runtimes are then disconnected by the reconciler after {@code disconnect-after}).
 *
 * <p>{@code maxDuration} ({@value #MAX_DURATION_S} s) bounds when a retry may still start, not a
 * call: it is above {@value #MAX_RETRIES} calls that each take the default {@code call-timeout}
 * (30 s) plus their delays, so a call that timed out is retried like one that was refused. A node
 * whose call-timeout is too long for that is warned about at startup ({@link #retriesAfterTimeout}).
 * Tune with MP Config, e.g. {@code dev.dockyard.backend.remote.RemoteCalls/idempotent/Retry/maxRetries}.
 * A CDI bean so the interceptor applies; it opens no transaction.
 */
@ApplicationScoped
public class RemoteCalls {

    static final int MAX_RETRIES = 3;
    static final long DELAY_MS = 1000;
    static final long JITTER_MS = 500;
    static final long MAX_DURATION_S = 150;
    private static final String RETRY = RemoteCalls.class.getName() + "/idempotent/Retry/";

    /** Runs {@code call}, again on no answer; only for calls that are safe to repeat. */
    @Retry(maxRetries = MAX_RETRIES, delay = DELAY_MS, delayUnit = ChronoUnit.MILLIS, jitter = JITTER_MS,
            maxDuration = MAX_DURATION_S, durationUnit = ChronoUnit.SECONDS, retryOn = RemoteUnreachableException.class)
    public <T> T idempotent(Supplier<T> call) {
        return call.get();
    }

    /** Runs {@code call} once, for what must not be repeated blindly. */
    public <T> T once(Supplier<T> call) {
        return call.get();
    }

    /**
     * How many retries of a call that takes the whole {@code callTimeout} every time still start
     * within {@code maxDuration} (at the longest delays); the retries as configured (MP Config
     * overrides of {@code maxRetries} and {@code maxDuration} included) when all of them do.
     */
    static int retriesAfterTimeout(Config config, Duration callTimeout) {
        int retries = config.getOptionalValue(RETRY + "maxRetries", Integer.class).orElse(MAX_RETRIES);
        long maxDuration = config.getOptionalValue(RETRY + "maxDuration", Long.class).orElse(MAX_DURATION_S);
        return retriesAfterTimeout(retries, Duration.ofSeconds(maxDuration), callTimeout);
    }

    static int retriesAfterTimeout(int retries, Duration maxDuration, Duration callTimeout) {
        Duration oneTry = callTimeout.plusMillis(DELAY_MS + JITTER_MS);
        int started = 0;
        // the n-th retry starts after n tries that timed out and their delays
        while (started < retries && oneTry.multipliedBy(started + 1L).compareTo(maxDuration) < 0) {
            started++;
        }
        return started;
    }
}
