package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A remote runtime's event stream ({@code GET /api/v1/runtimes/{id}/events}), followed while
 * provisioning waits for the runtime there (see the package comment, "Starts"). The HTTP client's
 * thread hands the stream's lines, one asked for at a time, to the waiting thread, which reads
 * them as {@link ServerSentEvent}s; no other thread is held while the stream is open.
 */
final class RuntimeEvents {

    /**
     * How long an event stream may say nothing before it counts as broken: the remote sends a
     * keep-alive comment every 15 s (RuntimeEventStreams), so three missed ones.
     */
    static final Duration STREAM_SILENCE = Duration.ofSeconds(45);

    private final RemoteNodeConfig settings;
    private final RemoteHttp http;
    private final RemoteAnswers answers;

    RuntimeEvents(RemoteNodeConfig settings, RemoteHttp http, RemoteAnswers answers) {
        this.settings = settings;
        this.http = http;
        this.answers = answers;
    }

    /** See {@link RemoteControlPlane#follow}. */
    Optional<RemoteRuntime> follow(String id, Instant deadline, Predicate<RemoteRuntime> settled) {
        EventLines lines = new EventLines();
        HttpRequest request = http.request("/api/v1/runtimes/" + RemoteHttp.encode(id) + "/events",
                settings.callTimeout()).header("Accept", "text/event-stream").GET().build();
        CompletableFuture<HttpResponse<Void>> exchange = http.exchangeAsync(request, answer -> {
            http.answered();
            if (answer.statusCode() != 200) {
                lines.end();
                return HttpResponse.BodySubscribers.replacing(null);
            }
            return HttpResponse.BodySubscribers.fromLineSubscriber(lines, l -> null, StandardCharsets.UTF_8, null);
        });
        exchange.whenComplete((answer, failure) -> {
            if (failure != null && !lines.cancelled()) {
                // a failure of our own closing is not the remote's
                http.unanswered();
            }
            lines.end();
        });
        try {
            ServerSentEvent event = new ServerSentEvent();
            while (true) {
                Duration wait = Duration.between(http.now(), deadline);
                if (wait.isNegative() || wait.isZero()) {
                    return Optional.empty();
                }
                Optional<String> line = lines.next(wait.compareTo(STREAM_SILENCE) < 0 ? wait : STREAM_SILENCE);
                if (line.isEmpty()) {
                    return Optional.empty();
                }
                Optional<RemoteRuntime> status = event.add(line.get()).map(data -> answers.statusOf(id, data));
                if (status.isPresent() && settled.test(status.get())) {
                    return status;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while following runtime " + id + " on remote node '"
                    + settings.node() + "'", e);
        } finally {
            lines.cancel();
            exchange.cancel(true);
        }
    }

    /**
     * The lines of an event stream, handed from the HTTP client's thread to the waiting one, one
     * asked for at a time (nothing piles up), and how the stream ended.
     */
    private static final class EventLines implements Flow.Subscriber<String> {
        private static final Object END = new Object();
        private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        private volatile boolean cancelled;

        @Override
        public void onSubscribe(Flow.Subscription given) {
            subscription.set(given);
            if (cancelled) {
                given.cancel();
            } else {
                given.request(1);
            }
        }

        @Override
        public void onNext(String line) {
            queue.add(line);
        }

        @Override
        public void onError(Throwable failure) {
            end();
        }

        @Override
        public void onComplete() {
            end();
        }

        void end() {
            queue.add(END);
        }

        /** The next line within {@code wait}; empty when the stream ended or said nothing that long. */
        Optional<String> next(Duration wait) throws InterruptedException {
            Object item = queue.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (!(item instanceof String line)) {
                return Optional.empty();
            }
            Flow.Subscription given = subscription.get();
            if (given != null) {
                given.request(1);
            }
            return Optional.of(line);
        }

        boolean cancelled() {
            return cancelled;
        }

        void cancel() {
            cancelled = true;
            Flow.Subscription given = subscription.get();
            if (given != null) {
                given.cancel();
            }
        }
    }
}
