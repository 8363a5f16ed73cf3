package dev.dockyard.api;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.CompletionCallback;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The backstop of a suspended answer: should the service that holds it never complete it, the
 * request is answered anyway once its longest wait has passed, and the timer goes as soon as the
 * answer is sent.
 *
 * <p>Not {@code AsyncResponse.setTimeout}: RESTEasy schedules that timer on its own scheduler,
 * which captures the request's thread contexts for every timer by a {@code ServiceLoader} scan of
 * the application's class path, under a lock every request shares. Profiled with 20 warm claims
 * at once, that cost up to 100 ms per {@code POST /runtimes}. One timer thread, made once by the
 * server's thread factory, costs a queue entry per request.
 */
@ApplicationScoped
public class AnswerBackstops {

    private static final Logger LOG = Logger.getLogger(AnswerBackstops.class.getName());

    @Resource
    ManagedThreadFactory threadFactory;

    @Resource
    ManagedExecutorService managedExecutor;

    /** Where late answers are sent: the server's executor. */
    private Executor executor;

    private ScheduledThreadPoolExecutor timer;

    public AnswerBackstops() {
    }

    /** For tests: a timer on threads of {@code threads}, late answers sent on {@code executor}. */
    AnswerBackstops(ThreadFactory threads, Executor executor) {
        this.executor = executor;
        start(threads);
    }

    @PostConstruct
    void start() {
        executor = managedExecutor;
        start(threadFactory);
    }

    private void start(ThreadFactory threads) {
        timer = new ScheduledThreadPoolExecutor(1, threads);
        // a request answered in time takes its timer out of the queue at once
        timer.setRemoveOnCancelPolicy(true);
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }

    /** Answers {@code async} with {@code late}'s exception after {@code after}, unless it is answered first. */
    public void guard(AsyncResponse async, Duration after, Supplier<? extends Throwable> late) {
        ScheduledFuture<?> backstop = timer.schedule(() -> answerLate(async, late), after.toMillis(),
                TimeUnit.MILLISECONDS);
        async.register((CompletionCallback) failure -> backstop.cancel(false));
    }

    /**
     * On the server's executor, not the timer's thread: in an outage many answers are late at once,
     * and one slow client must not hold the others' answers back.
     */
    private void answerLate(AsyncResponse async, Supplier<? extends Throwable> late) {
        Runnable answer = () -> {
            try {
                async.resume(late.get());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "A late answer could not be sent", e);
            }
        };
        try {
            executor.execute(answer);
        } catch (RejectedExecutionException e) {
            // the server is stopping: answered here, or not at all
            answer.run();
        }
    }

    /** Timers waiting (for tests: an answered request leaves none). */
    int waiting() {
        return timer.getQueue().size();
    }
}
