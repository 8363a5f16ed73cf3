package dev.dockyard.placement;

import dev.dockyard.backend.BackendException;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How many sandboxes a node boots at once. Booting is the costly moment of a sandbox's life (its
 * executor's JVM starts and warms up): a burst of a hundred cold provisions all booting together
 * on a two-core node starve one another until some miss their readiness limit and end in ERROR.
 * Here they take turns instead: a node boots at most its limit at once
 * ({@link DockyardConfig#maxConcurrentBoots(String)}), the others wait in line, and because a
 * boot's readiness limit starts counting only once it has its turn, a long line makes boots late,
 * never failed.
 *
 * <p>Two lines per node: a user's provision waits ahead of every pool member, so that a refill
 * never delays a request that somebody is waiting for; within a line, first come, first served.
 */
@ApplicationScoped
public class BootTurns {

    /** Whose boot it is: a request's (first) or a warm pool's (after every waiting request). */
    public enum Line {
        REQUEST, POOL
    }

    /** What a boot waiting for its turn is told once, when it has to wait. */
    @FunctionalInterface
    public interface Waiting {
        /**
         * @param booting the boots the node runs now (its limit)
         * @param ahead   the boots waiting before this one
         */
        void waiting(int booting, int ahead);
    }

    private final Map<String, Node> nodes = new ConcurrentHashMap<>();

    @Inject
    DockyardConfig config;

    /**
     * Waits until {@code node} may boot one more sandbox; the turn must be closed when the boot is
     * over (ready or failed), which lets the next one go.
     *
     * @throws BackendException when the thread is interrupted while waiting (it then holds no turn,
     *                           and stays interrupted)
     */
    public Turn take(String node, Line line, Waiting waiting) {
        int limit = config.maxConcurrentBoots(node);
        try {
            return nodes.computeIfAbsent(node, n -> new Node()).take(line, limit, waiting);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while waiting for a turn to boot on node '" + node + "'");
        }
    }

    /** The boots {@code node} runs now (for its report and tests). */
    public int booting(String node) {
        Node n = nodes.get(node);
        return n == null ? 0 : n.booting();
    }

    /** One boot's turn on a node: closing it (once; more closes do nothing) lets the next boot go. */
    public interface Turn extends AutoCloseable {
        @Override
        void close();
    }

    /** The turns of one node: its boots under way and its two lines. */
    static final class Node {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final Deque<Waiter> requests = new ArrayDeque<>();
        private final Deque<Waiter> pools = new ArrayDeque<>();
        private int booting;
        /** The limit the last taker read: settings are read per boot, so a changed one applies from the next. */
        private int limit = 1;

        /** One boot in line; granted once the node hands it a turn. */
        private static final class Waiter {
            boolean granted;
        }

        Turn take(Line line, int limitNow, Waiting waiting) throws InterruptedException {
            Waiter waiter = new Waiter();
            int booted;
            int ahead;
            lock.lock();
            try {
                limit = Math.max(1, limitNow);
                (line == Line.REQUEST ? requests : pools).addLast(waiter);
                grant();
                if (waiter.granted) {
                    return turn();
                }
                booted = booting;
                ahead = requests.size() - 1 + (line == Line.POOL ? pools.size() : 0);
            } finally {
                lock.unlock();
            }
            // told outside the lock: the caller records it, which may take a while
            if (waiting != null) {
                try {
                    waiting.waiting(booted, ahead);
                } catch (RuntimeException | Error e) {
                    leave(waiter);
                    throw e;
                }
            }
            lock.lock();
            try {
                while (!waiter.granted) {
                    try {
                        changed.await();
                    } catch (InterruptedException e) {
                        leaveLocked(waiter);
                        throw e;
                    }
                }
                return turn();
            } finally {
                lock.unlock();
            }
        }

        /** A waiter that gives up: out of its line, or its turn handed on if it was granted meanwhile. */
        private void leave(Waiter waiter) {
            lock.lock();
            try {
                leaveLocked(waiter);
            } finally {
                lock.unlock();
            }
        }

        private void leaveLocked(Waiter waiter) {
            if (waiter.granted) {
                booting--;
            } else {
                requests.remove(waiter);
                pools.remove(waiter);
            }
            grant();
        }

        /** With the lock held: hands free turns to the heads of the lines, requests first. */
        private void grant() {
            boolean any = false;
            while (booting < limit && (!requests.isEmpty() || !pools.isEmpty())) {
                Waiter next = !requests.isEmpty() ? requests.removeFirst() : pools.removeFirst();
                next.granted = true;
                booting++;
                any = true;
            }
            if (any) {
                changed.signalAll();
            }
        }

        private Turn turn() {
            return new Turn() {
                private boolean closed;

                @Override
                public void close() {
                    lock.lock();
                    try {
                        if (!closed) {
                            closed = true;
                            booting--;
                            grant();
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            };
        }

        int booting() {
            lock.lock();
            try {
                return booting;
            } finally {
                lock.unlock();
            }
        }
    }
}
