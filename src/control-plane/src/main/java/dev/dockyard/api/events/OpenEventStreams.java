package dev.dockyard.api.events;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@link QueuedEventStream}s one service has open, and the one timer that pings them all every
 * {@link #KEEP_ALIVE}.
 */
final class OpenEventStreams {

    /** How often an idle stream gets a comment: below the idle timeouts of common proxies (30–60 s). */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final Set<QueuedEventStream> open = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> keepAlive;

    void add(QueuedEventStream stream) {
        open.add(stream);
    }

    void remove(QueuedEventStream stream) {
        open.remove(stream);
    }

    int size() {
        return open.size();
    }

    /** A keep-alive comment to every open stream; a stream whose client left ends on it. */
    void ping() {
        open.forEach(s -> s.offer(QueuedEventStream.PING));
    }

    /** Starts the keep-alive timer on {@code scheduler}, once. */
    synchronized void keepAlive(ScheduledExecutorService scheduler) {
        if (keepAlive == null) {
            long every = KEEP_ALIVE.toMillis();
            keepAlive = scheduler.scheduleAtFixedRate(this::ping, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops the timer and ends every open stream. */
    synchronized void closeAll() {
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        open.forEach(QueuedEventStream::close);
    }
}
