package dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdleCollectorTest {

    /** A clock the test moves by hand. */
    private static final class ManualClock extends Clock {
        Instant now = Instant.parse("2026-11-25T12:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private record Pending(Runnable task, long delayMillis) {
    }

    private final ManualClock clock = new ManualClock();
    private final List<Pending> pending = new ArrayList<>();
    private final AtomicInteger collections = new AtomicInteger();
    private final AtomicLong heap = new AtomicLong(100L << 20);
    private final IdleCollector collector = new IdleCollector(clock, Duration.ofSeconds(2), 48L << 20, heap::get,
            collections::incrementAndGet, (task, delay) -> pending.add(new Pending(task, delay)), null);

    private void runNext() {
        Pending next = pending.remove(0);
        clock.now = clock.now.plusMillis(next.delayMillis());
        next.task().run();
    }

    @Test
    void shouldCollectOnceWhenIdleAfterActivity() {
        collector.activity();
        collector.activity();
        assertEquals(1, pending.size());
        runNext();
        assertEquals(1, collections.get());
        assertEquals(0, pending.size());
    }

    @Test
    void shouldWaitForTheIdlePeriodToStartAgainAfterEachAction() {
        collector.activity();
        clock.now = clock.now.plusMillis(1500);
        collector.activity();
        Pending first = pending.remove(0);
        clock.now = clock.now.plusMillis(500);
        first.task().run();
        assertEquals(0, collections.get());
        assertEquals(1, pending.size());
        assertEquals(1500, pending.get(0).delayMillis());
        runNext();
        assertEquals(1, collections.get());
    }

    @Test
    void shouldNotCollectASmallHeap() {
        heap.set(40L << 20);
        collector.activity();
        runNext();
        assertEquals(0, collections.get());
    }

    @Test
    void shouldBeOffWithZeroSeconds() {
        assertNull(IdleCollector.fromEnvironment(Map.of(IdleCollector.IDLE_SECONDS_ENV, "0"), clock));
    }
}
