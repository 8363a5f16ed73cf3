package dev.dockyard.executor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Gives the heap back once the executor goes idle after work: one full collection when no action
 * came for {@code DOCKYARD_IDLE_GC_SECONDS} (default 2; 0 turns it off) and the heap has grown past
 * {@code DOCKYARD_IDLE_GC_HEAP_MB} (default 36; ~32 after boot) committed.
 *
 * <p>Why: the executor runs the serial collector with a small young generation (its memory after
 * boot), so the megabyte-sized buffers of a file action or a large output are promoted and the old
 * generation grows; the collector shrinks it again ({@code MaxHeapFreeRatio}) only after a full
 * collection, which an executor waiting for its agent's next step would never have. The same idea
 * as OpenJ9's idle tuning and G1's periodic collections, which this JVM's collector lacks. The
 * collection (tens of milliseconds for the executor's ~25 MB live heap) runs while nothing is
 * asked of the executor, and at most once per burst of activity.
 */
public final class IdleCollector implements AutoCloseable {

    public static final String IDLE_SECONDS_ENV = "DOCKYARD_IDLE_GC_SECONDS";
    public static final String HEAP_MB_ENV = "DOCKYARD_IDLE_GC_HEAP_MB";

    private final Clock clock;
    private final Duration idle;
    private final long heapFloorBytes;
    private final LongSupplier committedHeap;
    private final Runnable collect;
    private final Later later;
    private final ScheduledExecutorService scheduler;
    private Instant lastActivity;
    private boolean scheduled;

    /** Runs a task after a delay (a scheduler in production, a list in tests). */
    interface Later {
        void run(Runnable task, long delayMillis);
    }

    IdleCollector(Clock clock, Duration idle, long heapFloorBytes, LongSupplier committedHeap, Runnable collect,
                  Later later, ScheduledExecutorService scheduler) {
        this.clock = clock;
        this.idle = idle;
        this.heapFloorBytes = heapFloorBytes;
        this.committedHeap = committedHeap;
        this.collect = collect;
        this.later = later;
        this.scheduler = scheduler;
    }

    /** The production collector (System.gc on a daemon thread of its own), or null when turned off. */
    public static IdleCollector fromEnvironment(Map<String, String> env, Clock clock) {
        double seconds = Double.parseDouble(env.getOrDefault(IDLE_SECONDS_ENV, "2"));
        if (!(seconds > 0)) {
            return null;
        }
        long floor = Long.parseLong(env.getOrDefault(HEAP_MB_ENV, "36")) * 1024 * 1024;
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "executor-idle-gc");
            t.setDaemon(true);
            return t;
        });
        return new IdleCollector(clock, Duration.ofMillis((long) (seconds * 1000)), floor,
                () -> Runtime.getRuntime().totalMemory(), System::gc,
                (task, delay) -> scheduler.schedule(task, delay, TimeUnit.MILLISECONDS), scheduler);
    }

    /** An action was served: the idle period starts again from now. */
    public synchronized void activity() {
        lastActivity = clock.instant();
        if (!scheduled) {
            scheduled = true;
            later.run(this::check, idle.toMillis());
        }
    }

    /** Runs when the idle period may be over: waits longer if there was activity since, else collects. */
    void check() {
        synchronized (this) {
            Duration since = Duration.between(lastActivity, clock.instant());
            if (since.compareTo(idle) < 0) {
                later.run(this::check, idle.minus(since).toMillis());
                return;
            }
            scheduled = false;
        }
        if (committedHeap.getAsLong() > heapFloorBytes) {
            collect.run();
        }
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
