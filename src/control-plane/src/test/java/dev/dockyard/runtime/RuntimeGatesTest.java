package dev.dockyard.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RuntimeGatesTest {

    private final RuntimeGates gates = new RuntimeGates();

    @Test
    void shouldRefuseActionsWhileMigrating() {
        try (RuntimeGates.Pass migration = gates.beginMigration("rt-1", Duration.ofSeconds(1))) {
            RuntimeGates.RuntimeBusyException refused = assertThrows(RuntimeGates.RuntimeBusyException.class,
                    () -> gates.enterAction("rt-1"));
            assertTrue(refused.migrating());
            // other runtimes are not held
            gates.enterAction("rt-2").close();
        }
        gates.enterAction("rt-1").close();
    }

    @Test
    void shouldStartAMigrationOnlyOnceTheRunningActionsHaveFinished() throws Exception {
        RuntimeGates.Pass action = gates.enterAction("rt-1");
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<RuntimeGates.Pass> migration = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            return gates.beginMigration("rt-1", Duration.ofSeconds(10));
        });
        assertTrue(waiting.await(5, TimeUnit.SECONDS));
        Thread.sleep(100);
        assertFalse(migration.isDone(), "the migration waits for the running action");
        // no new action gets in while it waits
        assertThrows(RuntimeGates.RuntimeBusyException.class, () -> gates.enterAction("rt-1"));

        action.close();

        migration.get(5, TimeUnit.SECONDS).close();
        assertFalse(gates.isMigrating("rt-1"));
    }

    @Test
    void shouldRefuseAMigrationWhenActionsDoNotFinishInTime() {
        try (RuntimeGates.Pass action = gates.enterAction("rt-1")) {
            RuntimeGates.RuntimeBusyException refused = assertThrows(RuntimeGates.RuntimeBusyException.class,
                    () -> gates.beginMigration("rt-1", Duration.ofMillis(50)));
            assertFalse(refused.migrating());
            assertFalse(gates.isMigrating("rt-1"), "a refused migration holds nothing");
            gates.enterAction("rt-1").close();
        }
    }

    @Test
    void shouldRefusePauseAndResumeWhileMigratingAndAMigrationWhilePausing() {
        try (RuntimeGates.Pass migration = gates.beginMigration("rt-1", Duration.ofSeconds(1))) {
            assertThrows(RuntimeGates.RuntimeBusyException.class, () -> gates.enterLifecycle("rt-1"));
            assertThrows(RuntimeGates.RuntimeBusyException.class,
                    () -> gates.beginMigration("rt-1", Duration.ofSeconds(1)));
        }
        try (RuntimeGates.Pass pause = gates.enterLifecycle("rt-1")) {
            assertThrows(RuntimeGates.RuntimeBusyException.class,
                    () -> gates.beginMigration("rt-1", Duration.ofSeconds(1)));
        }
        gates.beginMigration("rt-1", Duration.ofSeconds(1)).close();
    }

    @Test
    void shouldCountAPassClosedTwiceOnce() {
        RuntimeGates.Pass first = gates.enterAction("rt-1");
        RuntimeGates.Pass second = gates.enterAction("rt-1");
        first.close();
        first.close();
        assertThrows(RuntimeGates.RuntimeBusyException.class, () -> gates.beginMigration("rt-1", Duration.ofMillis(20)));
        second.close();
        gates.beginMigration("rt-1", Duration.ofMillis(20)).close();
    }

    @Test
    void shouldPutARuntimeToSleepOnlyWhenNothingHoldsIt() {
        RuntimeGates.Pass action = gates.enterAction("rt-1");
        assertTrue(gates.enterSleepIfIdle("rt-1").isEmpty(), "an action runs");
        action.close();
        RuntimeGates.Pass resume = gates.enterLifecycle("rt-1");
        assertTrue(gates.enterSleepIfIdle("rt-1").isEmpty(), "a resume is under way");
        resume.close();

        try (RuntimeGates.Pass sleep = gates.enterSleepIfIdle("rt-1").orElseThrow()) {
            assertTrue(gates.enterSleepIfIdle("rt-1").isEmpty(), "one sleep at a time");
            assertThrows(RuntimeGates.RuntimeBusyException.class, () -> gates.beginMigration("rt-1", Duration.ofMillis(20)));
        }
        gates.beginMigration("rt-1", Duration.ofMillis(20)).close();
    }

    @Test
    void shouldMakeActionsWaitUntilTheSleepHasLandedThenLetThemIn() throws Exception {
        RuntimeGates.Pass sleep = gates.enterSleepIfIdle("rt-1").orElseThrow();
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<RuntimeGates.Pass> action = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            return gates.enterAction("rt-1");
        });
        assertTrue(waiting.await(5, TimeUnit.SECONDS));
        Thread.sleep(100);
        assertFalse(action.isDone(), "the action waits while the runtime is put to sleep");

        sleep.close();
        action.get(5, TimeUnit.SECONDS).close();
        gates.enterSleepIfIdle("rt-1").orElseThrow(() -> new AssertionError("nothing holds it any more")).close();
    }
}
