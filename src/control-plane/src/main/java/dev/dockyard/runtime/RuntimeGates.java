package dev.dockyard.runtime;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Who may act on a runtime right now, in this control plane: actions, pause/resume and migration
 * are admitted here, each as a {@link Pass} held for as long as it works, so the checks and the
 * work they guard cannot interleave (no check-then-act).
 *
 * <ul>
 *   <li>Actions run side by side (the executor orders them itself).</li>
 *   <li>A migration admits no new action and no pause or resume, and starts only once the
 *       actions already running have finished (waiting a bounded time, else it is refused): what
 *       it copies is the workspace at one point in time, and nothing is written after it.</li>
 *   <li>A pause or resume is refused while a migration holds the runtime, and a migration is
 *       refused while one is under way, so neither undoes the other's freeze or thaw.</li>
 *   <li>The idle lifecycle puts a runtime to sleep (idle pause, hibernation) only when nothing at
 *       all holds it ({@link #enterSleepIfIdle}); while it does, new actions, pauses and resumes
 *       wait for it (bounded), then find the runtime asleep and wake it.</li>
 * </ul>
 * One monitor for all runtimes: admissions are a few field updates, and one lock keeps idle
 * entries removable without races. Control planes sharing a database do not share these gates:
 * each runtime is served by the control plane that owns it.
 */
@ApplicationScoped
public class RuntimeGates {

    /** How long an action, pause or resume waits for a runtime being put to sleep (a pause, or a container stop). */
    static final long SLEEP_WAIT_MS = 30_000;

    private final Map<String, Gate> gates = new HashMap<>();

    private static final class Gate {
        int actions;
        int lifecycle;
        boolean migrating;
        boolean sleeping;

        boolean idle() {
            return actions == 0 && lifecycle == 0 && !migrating && !sleeping;
        }
    }

    /** Held while the admitted work runs; closing it twice is harmless. */
    public interface Pass extends AutoCloseable {
        @Override
        void close();
    }

    /** A migration, a pause or a resume holds the runtime: the caller must come back later. */
    public static class RuntimeBusyException extends RuntimeException {
        private final boolean migrating;

        public RuntimeBusyException(String message, boolean migrating) {
            super(message);
            this.migrating = migrating;
        }

        /** True when a migration holds the runtime (API: 409 runtime-migrating). */
        public boolean migrating() {
            return migrating;
        }
    }

    /** Admits an action unless the runtime is being migrated. */
    public synchronized Pass enterAction(String runtimeId) {
        Gate gate = awaitAwake(runtimeId);
        if (gate.migrating) {
            throw new RuntimeBusyException("runtime " + runtimeId + " is being migrated to another node", true);
        }
        gate.actions++;
        return once(() -> {
            gate.actions--;
            notifyAll();
        }, runtimeId, gate);
    }

    /** Admits a pause or resume unless the runtime is being migrated. */
    public synchronized Pass enterLifecycle(String runtimeId) {
        Gate gate = awaitAwake(runtimeId);
        if (gate.migrating) {
            throw new RuntimeBusyException("runtime " + runtimeId + " is being migrated to another node", true);
        }
        gate.lifecycle++;
        return once(() -> gate.lifecycle--, runtimeId, gate);
    }

    /**
     * Holds the runtime for a migration: from now on no action, pause or resume is admitted, and
     * this returns once the actions already running have finished.
     *
     * @throws RuntimeBusyException when a migration, pause or resume holds it already, or the
     *                              running actions did not finish within {@code drain}
     */
    public synchronized Pass beginMigration(String runtimeId, Duration drain) {
        Gate gate = gates.computeIfAbsent(runtimeId, id -> new Gate());
        if (gate.migrating) {
            throw new RuntimeBusyException("runtime " + runtimeId + " is being migrated already", true);
        }
        if (gate.lifecycle > 0 || gate.sleeping) {
            throw new RuntimeBusyException("runtime " + runtimeId + " is being paused or resumed", false);
        }
        gate.migrating = true;
        long deadline = System.nanoTime() + drain.toNanos();
        try {
            while (gate.actions > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new RuntimeBusyException(gate.actions + " action(s) still running in runtime " + runtimeId
                            + " after " + drain.toSeconds() + " s; migrate it between actions", false);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            release(runtimeId, gate);
            throw new RuntimeBusyException("interrupted while waiting for the actions of runtime " + runtimeId, false);
        } catch (RuntimeBusyException e) {
            release(runtimeId, gate);
            throw e;
        }
        return once(() -> gate.migrating = false, runtimeId, gate);
    }

    /**
     * Holds the runtime while the idle lifecycle puts it to sleep, only if nothing holds it now (no
     * action, pause, resume or migration): empty otherwise, and the sweep tries again later. New
     * actions, pauses and resumes wait until the pass is closed.
     */
    public synchronized Optional<Pass> enterSleepIfIdle(String runtimeId) {
        Gate gate = gates.computeIfAbsent(runtimeId, id -> new Gate());
        if (!gate.idle()) {
            return Optional.empty();
        }
        gate.sleeping = true;
        return Optional.of(once(() -> {
            gate.sleeping = false;
            notifyAll();
        }, runtimeId, gate));
    }

    /**
     * Holds the runtime as {@link #enterSleepIfIdle} does, with actions still running allowed: the
     * reconciler's correction of a runtime frozen while READY, whose actions hang on the frozen
     * executor (a pause, resume, migration or sleep in this process leaves it empty).
     */
    public synchronized Optional<Pass> enterSleepBesideActions(String runtimeId) {
        Gate gate = gates.computeIfAbsent(runtimeId, id -> new Gate());
        if (gate.lifecycle > 0 || gate.migrating || gate.sleeping) {
            forgetIfIdle(runtimeId, gate);
            return Optional.empty();
        }
        gate.sleeping = true;
        return Optional.of(once(() -> {
            gate.sleeping = false;
            notifyAll();
        }, runtimeId, gate));
    }

    /** The runtime's gate once no sleep is being put on it (bounded wait). */
    private Gate awaitAwake(String runtimeId) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SLEEP_WAIT_MS);
        while (true) {
            Gate gate = gates.computeIfAbsent(runtimeId, id -> new Gate());
            if (!gate.sleeping) {
                return gate;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RuntimeBusyException("runtime " + runtimeId + " is still being put to sleep after "
                        + SLEEP_WAIT_MS / 1000 + " s; try again", false);
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeBusyException("interrupted while runtime " + runtimeId + " was put to sleep", false);
            }
        }
    }

    /** Whether a migration holds the runtime right now. */
    public synchronized boolean isMigrating(String runtimeId) {
        Gate gate = gates.get(runtimeId);
        return gate != null && gate.migrating;
    }

    private void release(String runtimeId, Gate gate) {
        gate.migrating = false;
        forgetIfIdle(runtimeId, gate);
    }

    private Pass once(Runnable exit, String runtimeId, Gate gate) {
        return new Pass() {
            private boolean closed;

            @Override
            public void close() {
                synchronized (RuntimeGates.this) {
                    if (!closed) {
                        closed = true;
                        exit.run();
                        forgetIfIdle(runtimeId, gate);
                    }
                }
            }
        };
    }

    private void forgetIfIdle(String runtimeId, Gate gate) {
        if (gate.idle()) {
            gates.remove(runtimeId, gate);
        }
    }
}
