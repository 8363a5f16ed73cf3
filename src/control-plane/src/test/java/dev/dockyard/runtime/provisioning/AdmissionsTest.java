package dev.dockyard.runtime.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.pool.MemberRowLocks;
import dev.dockyard.fakes.FakeRuntimes;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.runtime.RuntimeSecrets;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import jakarta.persistence.PersistenceException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Group commit of one user's registrations: fewer transactions, the same outcome for each request. */
class AdmissionsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeRuntimes runtimes = new FakeRuntimes();
    private final ExecutorService threads = Executors.newFixedThreadPool(20);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private SandboxRuntime runtime(String user, String conversation) {
        return new SandboxRuntime(conversation, user, "fake", "img", 1.0, 512, 60, clock.instant());
    }

    /** The real journal over in-memory rows, its transactions counted and made to take a while. */
    private ProvisioningJournal journal(int maxRuntimes, List<Integer> batches, AtomicInteger singles) {
        ProvisioningJournal journal = new ProvisioningJournal() {
            @Override
            public List<Registration> registerAll(List<Admission> batch) {
                synchronized (this) {
                    batches.add(batch.size());
                    pause();
                    return super.registerAll(batch);
                }
            }

            @Override
            public Registration register(SandboxRuntime runtime, Role role, boolean replace) {
                synchronized (this) {
                    singles.incrementAndGet();
                    pause();
                    return super.register(runtime, role, replace);
                }
            }
        };
        journal.runtimes = runtimes;
        journal.clock = clock;
        journal.secrets = new RuntimeSecrets();
        journal.accounts = new Accounts() {
            @Override
            public Allowance allowance(String userId) {
                long live = runtimes.live().stream().filter(r -> r.userId().equals(userId)).count();
                return new Allowance(maxRuntimes, 1000, 1_000_000, live, live, live * 512);
            }
        };
        return journal;
    }

    private static void pause() {
        try {
            // a transaction's lock, count, insert and commit
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<ProvisioningJournal.Registration> registerAtOnce(Admissions admissions, List<SandboxRuntime> all)
            throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ProvisioningJournal.Registration>> answers = new ArrayList<>();
        for (SandboxRuntime runtime : all) {
            answers.add(threads.submit(() -> {
                start.await();
                return admissions.register(runtime, Role.USER, false, null);
            }));
        }
        start.countDown();
        List<ProvisioningJournal.Registration> registrations = new ArrayList<>();
        for (Future<ProvisioningJournal.Registration> answer : answers) {
            registrations.add(answer.get(10, TimeUnit.SECONDS));
        }
        return registrations;
    }

    @Test
    void shouldRegisterTwentyConcurrentRequestsOfOneUserInAFewTransactions() throws Exception {
        List<Integer> batches = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger singles = new AtomicInteger();
        Admissions admissions = new Admissions();
        admissions.journal = journal(100, batches, singles);
        admissions.memberRows = new MemberRowLocks();
        List<SandboxRuntime> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            all.add(runtime("alice", "conv-" + i));
        }

        List<ProvisioningJournal.Registration> registrations = registerAtOnce(admissions, all);

        for (int i = 0; i < 20; i++) {
            assertSame(all.get(i), registrations.get(i).runtime(), "each request gets its own runtime registered");
        }
        assertEquals(20, runtimes.live().size());
        int transactions = batches.size() + singles.get();
        assertTrue(transactions <= 5, "20 requests, " + transactions + " transactions: " + batches + " + " + singles);
    }

    @Test
    void shouldCountEachAdmittedRuntimeOfABatchAgainstTheQuotaOfTheNext() throws Exception {
        Admissions admissions = new Admissions();
        admissions.journal = journal(3, Collections.synchronizedList(new ArrayList<>()), new AtomicInteger());
        admissions.memberRows = new MemberRowLocks();
        List<SandboxRuntime> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            all.add(runtime("alice", "conv-" + i));
        }

        List<ProvisioningJournal.Registration> registrations = registerAtOnce(admissions, all);

        assertEquals(3, registrations.stream().filter(ProvisioningJournal.Registration::admitted).count());
        assertEquals(5, registrations.stream().filter(r -> r.overQuota() != null).count());
        assertEquals(3, runtimes.live().size(), "never more than the quota, however the requests were batched");
    }

    @Test
    void shouldAnswerTheSecondRequestForAConversationWithTheFirstsRuntime() throws Exception {
        Admissions admissions = new Admissions();
        admissions.journal = journal(100, Collections.synchronizedList(new ArrayList<>()), new AtomicInteger());
        admissions.memberRows = new MemberRowLocks();
        List<SandboxRuntime> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            all.add(runtime("alice", "same-conversation"));
        }

        List<ProvisioningJournal.Registration> registrations = registerAtOnce(admissions, all);

        assertEquals(1, registrations.stream().filter(ProvisioningJournal.Registration::admitted).count());
        SandboxRuntime winner = runtimes.live().get(0);
        registrations.stream().filter(r -> !r.admitted())
                .forEach(r -> assertEquals(winner.id(), r.existing().id(), "busy with the first one's runtime"));
    }

    @Test
    void shouldGiveEachRequestItsOwnOutcomeWhenABatchFailsAsAWhole() throws Exception {
        AtomicInteger singles = new AtomicInteger();
        ProvisioningJournal journal = new ProvisioningJournal() {
            @Override
            public List<Registration> registerAll(List<Admission> batch) {
                throw new IllegalStateException("rolled back: a unique key");
            }

            @Override
            public Registration register(SandboxRuntime runtime, Role role, boolean replace) {
                singles.incrementAndGet();
                pause();
                if (runtime.conversationId().equals("conv-bad")) {
                    throw new IllegalArgumentException("this one's own failure");
                }
                return new Registration(runtime, null, null);
            }
        };
        Admissions admissions = new Admissions();
        admissions.journal = journal;
        admissions.memberRows = new MemberRowLocks();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ProvisioningJournal.Registration>> answers = new ArrayList<>();
        for (String conversation : List.of("conv-1", "conv-2", "conv-bad", "conv-3", "conv-4")) {
            SandboxRuntime runtime = runtime("alice", conversation);
            answers.add(threads.submit(() -> {
                start.await();
                return admissions.register(runtime, Role.USER, false, null);
            }));
        }
        start.countDown();

        int registered = 0;
        for (Future<ProvisioningJournal.Registration> answer : answers) {
            try {
                assertNotNull(answer.get(10, TimeUnit.SECONDS).runtime());
                registered++;
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof IllegalArgumentException, "its own exception: " + e.getCause());
            }
        }
        assertEquals(4, registered);
        assertEquals(5, singles.get(), "every registration tried again on its own");
        assertThrows(IllegalArgumentException.class,
                () -> admissions.register(runtime("alice", "conv-bad"), Role.USER, false, null));
    }

    /**
     * The runtime table with a transaction that fails: rows added in it are held back until it
     * rolls back, and never seen.
     */
    private static final class RollingBackRuntimes extends FakeRuntimes {
        private final List<SandboxRuntime> uncommitted = new ArrayList<>();
        private String failingConversation;

        @Override
        public synchronized void add(SandboxRuntime runtime, StatusChange first) {
            if (failingConversation == null) {
                super.add(runtime, first);
                return;
            }
            if (runtime.conversationId().equals(failingConversation)) {
                throw new PersistenceException("duplicate key value in a unique constraint (another control plane)");
            }
            uncommitted.add(runtime);
        }

        synchronized void failOn(String conversation) {
            failingConversation = conversation;
        }

        synchronized void rollBack() {
            uncommitted.clear();
            failingConversation = null;
        }
    }

    @Test
    void shouldHoldTheConversationWhenARegistrationGoesAgainAfterItsBatchRolledBack() {
        RollingBackRuntimes table = new RollingBackRuntimes();
        ProvisioningJournal journal = Journals.over(table, clock, new RuntimeSecrets());
        journal.accounts = new Accounts() {
            @Override
            public Allowance allowance(String userId) {
                return new Allowance(100, 100, 100_000, 0, 0, 0);
            }
        };
        SandboxRuntime old = runtime("alice", "conv-1");
        table.add(old, new StatusChange(old.id(), old.status(), "requested", clock.instant()));
        SandboxRuntime replacement = runtime("alice", "conv-1");
        table.failOn("conv-2");
        List<ProvisioningJournal.Admission> batch = List.of(
                new ProvisioningJournal.Admission(replacement, Role.USER, true, null),
                new ProvisioningJournal.Admission(runtime("alice", "conv-2"), Role.USER, false, null));

        // a batch fails as a whole, and Admissions registers its runtimes again, one by one, the same
        // objects; by then the runtime the first one was to replace has stopped
        assertThrows(PersistenceException.class, () -> journal.registerAll(batch));
        table.rollBack();
        journal.stop(old.id(), "Stopped on request");
        ProvisioningJournal.Registration again = journal.register(replacement, Role.USER, true);

        assertTrue(again.admitted());
        assertNull(replacement.replaces(), "it replaces nothing now");
        assertEquals(Optional.of(replacement.id()), journal.live("alice", "conv-1").map(SandboxRuntime::id),
                "it holds its conversation: no second live runtime can be registered beside it");
    }

    @Test
    void shouldSayWhyABatchWentAgainOneByOne() throws Exception {
        CountDownLatch firstInDatabase = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ProvisioningJournal journal = new ProvisioningJournal() {
            @Override
            public List<Registration> registerAll(List<Admission> batch) {
                throw new PersistenceException("rolled back", new IllegalStateException("a lock timeout"));
            }

            @Override
            public Registration register(SandboxRuntime runtime, Role role, boolean replace) {
                if (runtime.conversationId().equals("conv-first")) {
                    firstInDatabase.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return new Registration(runtime, null, null);
            }
        };
        Admissions admissions = new Admissions();
        admissions.journal = journal;
        admissions.memberRows = new MemberRowLocks();
        List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(Admissions.class.getName());
        log.addHandler(handler);
        try {
            Thread first = new Thread(() -> admissions.register(runtime("alice", "conv-first"), Role.USER, false, null));
            first.start();
            assertTrue(firstInDatabase.await(10, TimeUnit.SECONDS));
            // two more while the first is in the database: they wait in the line, and go as one batch
            List<Thread> line = new ArrayList<>();
            for (String conversation : List.of("conv-2", "conv-3")) {
                Thread t = new Thread(() -> admissions.register(runtime("alice", conversation), Role.USER, false, null));
                line.add(t);
                t.start();
            }
            for (Thread t : line) {
                for (int i = 0; i < 1000 && t.getState() != Thread.State.WAITING; i++) {
                    Thread.sleep(5);
                }
                assertEquals(Thread.State.WAITING, t.getState(), "waiting in the line");
            }
            release.countDown();
            first.join(10_000);
            for (Thread t : line) {
                t.join(10_000);
            }
        } finally {
            log.removeHandler(handler);
        }

        List<String> warnings = records.stream().filter(r -> r.getLevel() == Level.WARNING)
                .map(LogRecord::getMessage).toList();
        assertEquals(1, warnings.size(), "the batch's failure is not swallowed: " + warnings);
        assertTrue(warnings.get(0).contains("2 registrations") && warnings.get(0).contains("PersistenceException")
                && warnings.get(0).contains("IllegalStateException"), warnings.get(0));
    }
}
