package dev.dockyard.application.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Deadlines;
import dev.dockyard.application.Refused;
import dev.dockyard.cluster.ControlPlaneInstance;
import dev.dockyard.cluster.Leases;
import dev.dockyard.fakes.FakeLeaseStore;
import dev.dockyard.fakes.MutableClock;
import dev.dockyard.idempotency.IdempotentAnswer;
import jakarta.persistence.EntityExistsException;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Replays of idempotent requests on an in-memory key store and a hand-driven timer: nothing sleeps. */
class IdempotentRequestsTest {

    /** The key store as the database behaves: a second claim of a key fails on its primary key. */
    static final class FakeKeys extends IdempotencyKeys {
        final Map<String, IdempotentAnswer> rows = new HashMap<>();
        int finds;
        int claims;
        /** Runs inside the next claim, as another request arriving while the database works. */
        Runnable duringClaim;

        @Override
        public void claim(String id, String requestHash, String claimer) {
            Runnable meanwhile = duringClaim;
            duringClaim = null;
            if (meanwhile != null) {
                meanwhile.run();
            }
            claimNow(id, requestHash, claimer);
        }

        private synchronized void claimNow(String id, String requestHash, String claimer) {
            failWhileDown();
            claims++;
            if (rows.containsKey(id)) {
                throw new EntityExistsException("duplicate key " + id);
            }
            rows.put(id, new IdempotentAnswer(id, requestHash, Instant.EPOCH, claimer));
        }

        @Override
        public synchronized boolean forgetAbandoned(String id, String claimer) {
            IdempotentAnswer claim = rows.get(id);
            if (claim == null || claim.completed() || !claimer.equals(claim.claimedBy())) {
                return false;
            }
            rows.remove(id);
            return true;
        }

        @Override
        public synchronized Optional<IdempotentAnswer> find(String id) {
            finds++;
            return Optional.ofNullable(rows.get(id));
        }

        @Override
        public synchronized void complete(String id, int status, String body) {
            rows.get(id).complete(status, body);
        }

        /** Set while the database does not answer: claims, finds and releases fail as Liberty's data source fails them. */
        boolean down;

        @Override
        public synchronized void release(String id) {
            failWhileDown();
            rows.computeIfPresent(id, (k, a) -> a.completed() ? a : null);
        }

        private void failWhileDown() {
            if (down) {
                throw new PersistenceException("Exception [EclipseLink-4002]", new SQLException(
                        "Connection to 127.0.0.1:15442 refused", "08001"));
            }
        }
    }

    /** Deadlines that fire only when the test says so. */
    static final class ManualDeadlines implements Deadlines {
        final List<Runnable> due = new ArrayList<>();
        final List<Duration> delays = new ArrayList<>();
        final Map<Runnable, Duration> delayOf = new IdentityHashMap<>();
        int cancelled;

        @Override
        public Runnable after(Duration delay, Runnable task) {
            delays.add(delay);
            delayOf.put(task, delay);
            due.add(task);
            return () -> {
                if (due.remove(task)) {
                    cancelled++;
                }
            };
        }

        void fireAll() {
            List<Runnable> now = new ArrayList<>(due);
            due.clear();
            now.forEach(Runnable::run);
        }

        /** Fires only the tasks scheduled after {@code delay}: the others' time has not come. */
        void fire(Duration delay) {
            List<Runnable> now = due.stream().filter(task -> delayOf.get(task).equals(delay)).toList();
            due.removeAll(now);
            now.forEach(Runnable::run);
        }
    }

    private final FakeKeys keys = new FakeKeys();
    private final ManualDeadlines deadlines = new ManualDeadlines();
    private final IdempotentRequests requests = new IdempotentRequests();
    private final AtomicInteger carriedOut = new AtomicInteger();

    @BeforeEach
    void wire() {
        requests.keys = keys;
        requests.deadlines = deadlines;
    }

    private CompletionStage<IdempotentRequests.Outcome<String>> send(String hash, CompletableFuture<String> answer) {
        return requests.once("alice/k1", hash, () -> {
            carriedOut.incrementAndGet();
            return answer;
        }, body -> new IdempotentRequests.StoredAnswer(201, body));
    }

    private static Refused refusal(CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(5, TimeUnit.SECONDS));
        return assertInstanceOf(Refused.class, e.getCause());
    }

    @Test
    void shouldAnswerWaitingRetryWhenFirstAnswerIsStored() throws Exception {
        CompletableFuture<String> firstAnswer = new CompletableFuture<>();
        CompletableFuture<IdempotentRequests.Outcome<String>> first = send("h", firstAnswer).toCompletableFuture();
        CompletableFuture<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>())
                .toCompletableFuture();

        assertFalse(retry.isDone(), "the retry waits for the first answer");
        assertEquals(1, requests.waitingKeys());
        assertEquals(List.of(IdempotentRequests.REPLAY_WAIT), deadlines.delays);
        int findsWhileWaiting = keys.finds;

        firstAnswer.complete("{\"id\":\"rt-1\"}");

        assertEquals("{\"id\":\"rt-1\"}", first.get().first());
        assertFalse(first.get().isReplay());
        assertTrue(retry.get().isReplay());
        assertEquals(new IdempotentRequests.StoredAnswer(201, "{\"id\":\"rt-1\"}"), retry.get().replayed());
        assertEquals(1, carriedOut.get(), "carried out once");
        assertEquals(findsWhileWaiting, keys.finds, "completed by the first answer, not by looking again");
        assertEquals(1, deadlines.cancelled, "the retry's deadline is cancelled");
        assertEquals(0, requests.waitingKeys());
    }

    /**
     * The soak's PostgreSQL stop: a first request that failed while the database was down could
     * not have its claim forgotten, and that failure escaped the answer's callback, so the request
     * waited for its backstop (90 s, then 500). Now it gets its own failure at once, and the claim
     * is forgotten with the next request carrying a key once the database answers.
     */
    @Test
    void shouldAnswerAFailedFirstAtOnceWhenItsClaimCannotBeForgottenAndForgetItLater() throws Exception {
        CompletableFuture<String> firstAnswer = new CompletableFuture<>();
        CompletableFuture<IdempotentRequests.Outcome<String>> first = send("h", firstAnswer).toCompletableFuture();
        keys.down = true;

        firstAnswer.completeExceptionally(new IllegalStateException("the database is gone"));

        assertTrue(first.isDone(), "answered without waiting for a backstop");
        ExecutionException e = assertThrows(ExecutionException.class, first::get);
        assertEquals("the database is gone", e.getCause().getMessage());
        assertTrue(keys.rows.containsKey("alice/k1"), "the claim could not be forgotten yet");

        keys.down = false;
        requests.once("alice/other-key", "h", () -> CompletableFuture.completedFuture("{}"),
                body -> new IdempotentRequests.StoredAnswer(201, body)).toCompletableFuture().get();
        assertFalse(keys.rows.containsKey("alice/k1"), "forgotten with the next request carrying a key");
        assertEquals("{\"id\":\"rt-9\"}", send("h", CompletableFuture.completedFuture("{\"id\":\"rt-9\"}"))
                .toCompletableFuture().get().first(), "a retry carries the request out");
    }

    @Test
    void shouldNotTakeAClaimTheDatabaseDidNotAnswerForAKeyHeldElsewhere() {
        keys.down = true;

        PersistenceException e = assertThrows(PersistenceException.class, () -> send("h", new CompletableFuture<>()));

        assertEquals("08001", ((SQLException) e.getCause()).getSQLState(), "the outage itself, answered 503 by the API");
        assertEquals(0, keys.finds, "no replay looked for");
        assertEquals(0, carriedOut.get());
        keys.down = false;
        assertFalse(send("h", new CompletableFuture<>()).toCompletableFuture().isDone(), "the key is free for a retry");
        assertEquals(1, carriedOut.get());
    }

    @Test
    void shouldReplayStoredAnswerAtOnce() throws Exception {
        send("h", CompletableFuture.completedFuture("{\"id\":\"rt-2\"}")).toCompletableFuture().get();

        IdempotentRequests.Outcome<String> again = send("h", new CompletableFuture<>()).toCompletableFuture().get();

        assertEquals("{\"id\":\"rt-2\"}", again.replayed().body());
        assertNull(again.first());
        assertTrue(deadlines.delays.isEmpty(), "nothing to wait for");
        assertEquals(1, carriedOut.get());
    }

    @Test
    void shouldRefuseRetryWithAnotherBody() {
        send("h", new CompletableFuture<>());

        Refused refused = refusal(send("other", new CompletableFuture<>()));

        assertEquals(Refused.Reason.IDEMPOTENCY_KEY_REUSED, refused.reason());
        assertEquals(0, requests.waitingKeys());
    }

    @Test
    void shouldAnswerBusyWhenFirstIsNotAnsweredWithinReplayWait() {
        send("h", new CompletableFuture<>());
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());
        assertFalse(retry.toCompletableFuture().isDone());

        deadlines.fireAll();

        Refused refused = refusal(retry);
        assertEquals(Refused.Reason.CONVERSATION_BUSY, refused.reason());
        assertTrue(refused.getMessage().contains("still being answered"), refused.getMessage());
        assertEquals(5, refused.retryAfterSeconds(), "a client is told when to come back");
        assertEquals(0, requests.waitingKeys());
    }

    /**
     * The first's process was alive when the retry came (killed a moment before: its heartbeat had
     * not expired) and died while the retry waited: the key is free at the retry's next look, and
     * the caller is told to try again now, which carries the request out.
     */
    @Test
    void shouldFreeTheKeyOfAFirstWhoseProcessDiedWhileTheRetryWaited() throws Exception {
        MutableClock clock = claimedByAProcessThatDies(Instant.parse("2026-11-30T08:00:00Z"));
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());
        assertFalse(retry.toCompletableFuture().isDone(), "its process lives: the retry waits");

        clock.advance(IdempotentRequests.REPLAY_WAIT);
        deadlines.fireAll();

        Refused refused = refusal(retry);
        assertEquals(Refused.Reason.CONVERSATION_BUSY, refused.reason());
        assertEquals(1, refused.retryAfterSeconds());
        assertTrue(refused.getMessage().contains("retry now"), refused.getMessage());
        IdempotentRequests.Outcome<String> again = send("h", CompletableFuture.completedFuture("{\"id\":\"rt-9\"}"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertFalse(again.isReplay(), "carried out by the next try");
        assertEquals(1, carriedOut.get());
    }

    /**
     * The first is answered by another control plane on the same database, whose answer sends no
     * event here: the retry replays it at its next look, seconds after it was stored, not at the
     * end of the whole wait.
     */
    @Test
    void shouldReplayAnAnswerStoredByAnotherControlPlaneAtTheNextLook() throws Exception {
        keys.claim("alice/k1", "h", "other");
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());
        assertEquals(List.of(IdempotentRequests.LOOK_AGAIN), deadlines.delays);

        deadlines.fireAll();
        assertFalse(retry.toCompletableFuture().isDone(), "not answered yet: it looks again");
        keys.complete("alice/k1", 202, "{\"id\":\"rt-4\"}");
        deadlines.fireAll();

        assertEquals(202, retry.toCompletableFuture().get(5, TimeUnit.SECONDS).replayed().status());
        assertEquals(List.of(IdempotentRequests.LOOK_AGAIN, IdempotentRequests.LOOK_AGAIN), deadlines.delays);
        assertEquals(0, requests.waitingKeys());
        assertEquals(0, carriedOut.get());
    }

    /**
     * The soak's fork after the lease holder's kill (2026-12-02 16:38): each try waited out the
     * whole minute although the first's process was known dead after half of it. Now the retry
     * hears "retry now" at the first look after the process's heartbeat expired.
     */
    @Test
    void shouldFreeTheKeyAtTheFirstLookAfterTheFirstsProcessIsKnownDead() throws Exception {
        MutableClock clock = claimedByAProcessThatDies(Instant.parse("2026-12-02T16:38:00Z"));
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());

        deadlines.fireAll();
        assertFalse(retry.toCompletableFuture().isDone(), "its process still counts as alive");
        clock.advance(Duration.ofSeconds(31));
        deadlines.fireAll();

        Refused refused = refusal(retry);
        assertTrue(refused.getMessage().contains("retry now"), refused.getMessage());
        assertEquals(2, deadlines.delays.size(), "two looks, not the whole wait: " + deadlines.delays);
        assertFalse(send("h", CompletableFuture.completedFuture("{\"id\":\"rt-9\"}")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).isReplay(), "carried out by the next try");
    }

    /**
     * A retry that came here while this control plane's request was claiming the key waits for that
     * request's signal. The key was held elsewhere, by a process that then died: the request hears
     * "retry now" at a look, and the retry waiting on it is told at once, not at the end of its minute.
     */
    @Test
    void shouldTellARetryWaitingOnARequestThatMetAClaimElsewhereWhenThatRequestEnds() throws Exception {
        MutableClock clock = claimedByAProcessThatDies(Instant.parse("2026-12-02T16:38:00Z"));
        List<CompletionStage<IdempotentRequests.Outcome<String>>> retry = new ArrayList<>();
        keys.duringClaim = () -> retry.add(send("h", new CompletableFuture<>()));

        CompletionStage<IdempotentRequests.Outcome<String>> request = send("h", new CompletableFuture<>());
        assertEquals(1, retry.size());
        clock.advance(Duration.ofSeconds(31));
        List<Duration> before = List.copyOf(deadlines.delays);
        deadlines.fire(IdempotentRequests.LOOK_AGAIN);

        assertTrue(refusal(request).getMessage().contains("retry now"));
        Refused told = refusal(retry.get(0));
        assertEquals(1, told.retryAfterSeconds(), told.getMessage());
        assertEquals(List.of(IdempotentRequests.REPLAY_WAIT, IdempotentRequests.LOOK_AGAIN), before,
                "the retry's single deadline and the request's first look");
        assertEquals(0, requests.waitingKeys());
    }

    /**
     * The key's first was abandoned and freed, then taken and answered by a request with another
     * body: a retry of the first body that waited meanwhile is refused as a reused key, not handed
     * the other request's answer.
     */
    @Test
    void shouldNotHandARetryTheAnswerOfAnotherBodyThatTookTheKeyMeanwhile() {
        keys.claim("alice/k1", "h", "other");
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());
        keys.rows.clear();
        keys.claim("alice/k1", "other body", "other");
        keys.complete("alice/k1", 201, "{\"id\":\"rt-5\"}");

        deadlines.fireAll();

        assertEquals(Refused.Reason.IDEMPOTENCY_KEY_REUSED, refusal(retry).reason());
    }

    @Test
    void shouldReplayAnswerStoredElsewhereWhenDeadlineLooksOnceMore() throws Exception {
        send("h", new CompletableFuture<>());
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());
        // another control plane on the same database answered: no event reaches this one
        keys.complete("alice/k1", 202, "{\"id\":\"rt-3\"}");

        deadlines.fireAll();

        assertEquals(202, retry.toCompletableFuture().get().replayed().status());
    }

    @Test
    void shouldReleaseKeyAndTellRetriesWhenFirstFails() throws Exception {
        CompletableFuture<String> firstAnswer = new CompletableFuture<>();
        CompletableFuture<IdempotentRequests.Outcome<String>> first = send("h", firstAnswer).toCompletableFuture();
        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());

        firstAnswer.completeExceptionally(new IllegalStateException("backend down"));

        ExecutionException failed = assertThrows(ExecutionException.class,
                first::get);
        assertInstanceOf(IllegalStateException.class, failed.getCause());
        assertEquals(Refused.Reason.CONVERSATION_BUSY, refusal(retry).reason());
        assertTrue(keys.rows.isEmpty(), "the claim is released");

        IdempotentRequests.Outcome<String> rerun = send("h", CompletableFuture.completedFuture("{\"id\":\"rt-4\"}"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertFalse(rerun.isReplay(), "a retry after the failure carries the request out");
        assertEquals(2, carriedOut.get());
    }

    @Test
    void shouldKeepRetriesOfAFirstBeingAnsweredHereAwayFromTheDatabase() throws Exception {
        // a database makes a second insert of a key wait, on a server thread, for the first's commit
        CompletableFuture<String> firstAnswer = new CompletableFuture<>();
        CompletableFuture<IdempotentRequests.Outcome<String>> first = send("h", firstAnswer).toCompletableFuture();
        List<CompletableFuture<IdempotentRequests.Outcome<String>>> retries = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            retries.add(send("h", new CompletableFuture<>()).toCompletableFuture());
        }

        assertEquals(1, keys.claims, "only the first claims the key in the database");
        assertEquals(0, keys.finds, "retries wait for the first's signal, not on the database");
        assertTrue(retries.stream().noneMatch(CompletableFuture::isDone));

        firstAnswer.complete("{\"id\":\"rt-5\"}");

        assertFalse(first.get().isReplay());
        for (CompletableFuture<IdempotentRequests.Outcome<String>> retry : retries) {
            assertEquals("{\"id\":\"rt-5\"}", retry.get().replayed().body());
        }
        assertEquals(1, carriedOut.get());
        assertEquals(0, requests.waitingKeys());

        // the key is no longer in flight: a later retry is replayed from the database
        assertEquals("{\"id\":\"rt-5\"}", send("h", new CompletableFuture<>()).toCompletableFuture().get()
                .replayed().body());
    }

    @Test
    void shouldRefuseALocalRetryWithAnotherBodyWithoutTheDatabase() {
        send("h", new CompletableFuture<>());

        assertEquals(Refused.Reason.IDEMPOTENCY_KEY_REUSED, refusal(send("other", new CompletableFuture<>())).reason());
        assertEquals(1, keys.claims);
    }

    @Test
    void shouldLetARetryCarryTheRequestOutOnceTheLocalFirstFailed() throws Exception {
        CompletableFuture<String> firstAnswer = new CompletableFuture<>();
        send("h", firstAnswer);
        firstAnswer.completeExceptionally(new IllegalStateException("backend down"));

        IdempotentRequests.Outcome<String> rerun = send("h", CompletableFuture.completedFuture("{\"id\":\"rt-6\"}"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertFalse(rerun.isReplay());
        assertEquals(2, keys.claims);
    }

    @Test
    void shouldHandRetriesTheAnswerStoredBeforeTheirLocalFirstClaimedTheKey() throws Exception {
        // the key's answer is in the database already (answered by another control plane, say), and a
        // retry arrives here while the first of this control plane is still finding that out
        keys.rows.put("alice/k1", new IdempotentAnswer("alice/k1", "h", Instant.EPOCH));
        keys.complete("alice/k1", 201, "{\"id\":\"rt-7\"}");
        List<CompletableFuture<IdempotentRequests.Outcome<String>>> retry = new ArrayList<>();
        keys.duringClaim = () -> retry.add(send("h", new CompletableFuture<>()).toCompletableFuture());

        IdempotentRequests.Outcome<String> first = send("h", new CompletableFuture<>()).toCompletableFuture().get();

        assertEquals("{\"id\":\"rt-7\"}", first.replayed().body());
        assertTrue(retry.get(0).isDone(), "the retry is answered with the first, not after its 60 s deadline");
        assertEquals("{\"id\":\"rt-7\"}", retry.get(0).get().replayed().body());
        assertEquals(0, requests.waitingKeys());
        assertEquals(0, carriedOut.get());
    }

    private static final Duration TTL = Duration.ofSeconds(30);

    /**
     * Key {@code alice/k1} claimed by another process whose heartbeat is fresh at {@code now}, as a
     * process killed a moment before leaves it; this control plane's leases read the same store.
     * Its clock: advanced past the heartbeat's expiry, that process is known dead.
     */
    private MutableClock claimedByAProcessThatDies(Instant now) {
        FakeLeaseStore store = new FakeLeaseStore();
        MutableClock clock = new MutableClock(now);
        Leases killed = processes(store, clock, "other");
        killed.heartbeat();
        keys.claim("alice/k1", "h", killed.me());
        requests.leases = processes(store, clock, "me");
        return clock;
    }

    /** Processes on one lease store: this one ("me") and another. */
    private Leases processes(FakeLeaseStore store, MutableClock clock, String id) {
        return new Leases(store, clock, ControlPlaneInstance.of(id, TTL));
    }

    @Test
    void shouldCarryOutARetryWhoseFirstsProcessDiedMidRequest() throws Exception {
        FakeLeaseStore store = new FakeLeaseStore();
        MutableClock clock = new MutableClock(Instant.parse("2026-11-30T08:00:00Z"));
        Leases other = processes(store, clock, "other");
        other.heartbeat();
        keys.claim("alice/k1", "h", other.me());
        requests.leases = processes(store, clock, "me");
        // killed: its heartbeat is not renewed and expires
        clock.advance(TTL.plusSeconds(1));

        IdempotentRequests.Outcome<String> retry = send("h", CompletableFuture.completedFuture("{\"id\":\"rt-9\"}"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertFalse(retry.isReplay(), "carried out by the retry");
        assertEquals(1, carriedOut.get());
        assertEquals(201, keys.rows.get("alice/k1").status());
        assertEquals(requests.leases.me(), keys.rows.get("alice/k1").claimedBy());
    }

    /**
     * The first's control plane killed and restarted under its fixed id before the retry: alive
     * again as an instance, but not the process that claimed the key (the soak, 2026-11-30: seven
     * keys answered "still being answered" for good).
     */
    @Test
    void shouldCarryOutARetryWhoseFirstsProcessDiedThoughItsInstanceRestarted() throws Exception {
        FakeLeaseStore store = new FakeLeaseStore();
        MutableClock clock = new MutableClock(Instant.parse("2026-11-30T08:00:00Z"));
        Leases killed = new Leases(store, clock, ControlPlaneInstance.of("other", "1", TTL));
        killed.heartbeat();
        keys.claim("alice/k1", "h", killed.me());
        clock.advance(TTL.plusSeconds(1));
        new Leases(store, clock, ControlPlaneInstance.of("other", "2", TTL)).heartbeat();
        requests.leases = processes(store, clock, "me");

        IdempotentRequests.Outcome<String> retry = send("h", CompletableFuture.completedFuture("{\"id\":\"rt-9\"}"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertFalse(retry.isReplay(), "carried out by the retry");
        assertEquals(1, carriedOut.get());
    }

    @Test
    void shouldCarryOutARetryWhoseFirstWasThisProcesssEarlierSelf() throws Exception {
        // embedded Derby: a restarted process has the id it had; its first is not running here
        keys.claim("alice/k1", "h", "me");
        requests.leases = processes(new FakeLeaseStore(), new MutableClock(Instant.EPOCH), "me");

        IdempotentRequests.Outcome<String> retry = send("h", CompletableFuture.completedFuture("{\"id\":\"rt-9\"}"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertFalse(retry.isReplay());
        assertEquals(1, carriedOut.get());
    }

    @Test
    void shouldWaitForAFirstWhoseProcessLives() {
        FakeLeaseStore store = new FakeLeaseStore();
        MutableClock clock = new MutableClock(Instant.parse("2026-11-30T08:00:00Z"));
        Leases other = processes(store, clock, "other");
        other.heartbeat();
        keys.claim("alice/k1", "h", other.me());
        requests.leases = processes(store, clock, "me");

        CompletionStage<IdempotentRequests.Outcome<String>> retry = send("h", new CompletableFuture<>());

        assertFalse(retry.toCompletableFuture().isDone(), "waits for the first's answer");
        assertEquals(0, carriedOut.get());
    }

    @Test
    void shouldNotTakeOverADeadProcesssClaimForAnotherBody() {
        keys.claim("alice/k1", "h", "gone");
        requests.leases = processes(new FakeLeaseStore(), new MutableClock(Instant.EPOCH), "me");

        Refused refused = refusal(send("another", new CompletableFuture<>()));

        assertEquals(Refused.Reason.IDEMPOTENCY_KEY_REUSED, refused.reason());
        assertEquals(0, carriedOut.get());
    }
}
