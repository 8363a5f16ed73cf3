package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.CompletionCallback;
import jakarta.ws.rs.container.TimeoutHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AnswerBackstopsTest {

    private final ExecutorService senders = Executors.newSingleThreadExecutor();
    private final AnswerBackstops backstops = new AnswerBackstops(Executors.defaultThreadFactory(), senders);

    @AfterEach
    void stop() {
        backstops.stop();
        senders.shutdownNow();
    }

    @Test
    void shouldAnswerARequestNobodyAnsweredOnceItsWaitHasPassed() throws Exception {
        Suspended async = new Suspended();
        backstops.guard(async, Duration.ofMillis(50), () -> new IllegalStateException("no answer within 0 s"));

        assertTrue(async.answered.await(5, TimeUnit.SECONDS), "the backstop never answered");
        assertEquals("no answer within 0 s", ((Throwable) async.answer).getMessage());
    }

    @Test
    void shouldDropTheTimerOfARequestAnsweredInTime() throws Exception {
        Suspended async = new Suspended();
        backstops.guard(async, Duration.ofMinutes(1), () -> new IllegalStateException("late"));
        assertEquals(1, backstops.waiting());

        async.resume("the answer");

        assertEquals(0, backstops.waiting(), "an answered request's timer stays queued");
        assertEquals("the answer", async.answer);
    }

    /** An AsyncResponse as RESTEasy's behaves here: the first answer wins, then the callbacks run. */
    private static final class Suspended implements AsyncResponse {
        final CountDownLatch answered = new CountDownLatch(1);
        final List<CompletionCallback> callbacks = new ArrayList<>();
        volatile Object answer;

        private synchronized boolean answer(Object value, Throwable failure) {
            if (answer != null) {
                return false;
            }
            answer = value != null ? value : failure;
            answered.countDown();
            callbacks.forEach(c -> c.onComplete(failure));
            return true;
        }

        @Override
        public boolean resume(Object response) {
            return answer(response, null);
        }

        @Override
        public boolean resume(Throwable response) {
            return answer(null, response);
        }

        @Override
        public synchronized Collection<Class<?>> register(Object callback) {
            callbacks.add((CompletionCallback) callback);
            return List.of(CompletionCallback.class);
        }

        @Override
        public boolean cancel() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean cancel(int retryAfter) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean cancel(Date retryAfter) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isSuspended() {
            return answer == null;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean isDone() {
            return answer != null;
        }

        @Override
        public boolean setTimeout(long time, TimeUnit unit) {
            throw new UnsupportedOperationException("the backstop must not use RESTEasy's timer");
        }

        @Override
        public void setTimeoutHandler(TimeoutHandler handler) {
            throw new UnsupportedOperationException("the backstop must not use RESTEasy's timer");
        }

        @Override
        public Collection<Class<?>> register(Class<?> callback) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<Class<?>, Collection<Class<?>>> register(Class<?> callback, Class<?>... callbacks) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<Class<?>, Collection<Class<?>>> register(Object callback, Object... callbacks) {
            throw new UnsupportedOperationException();
        }
    }
}
