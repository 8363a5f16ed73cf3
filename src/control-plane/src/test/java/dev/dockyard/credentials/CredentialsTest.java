package dev.dockyard.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.FakeCredentialStore;
import dev.dockyard.fakes.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Resolution against a token server with single-use refresh tokens: a token the provider has
 * rotated must be stored whatever else fails, and two refreshes of one token must never race.
 */
class CredentialsTest {

    private static final String USER = "alice";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-23T10:00:00Z"));
    private final FakeCredentialStore store = new FakeCredentialStore();
    private final RotatingTokenServer server = new RotatingTokenServer();
    private final Credentials credentials = new Credentials(store, List.of(server, new StoredSecretProvider()),
            Duration.ofMinutes(5), clock);
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private StoredCredential oauth2(String name) {
        StoredCredential credential = new StoredCredential(USER, name, "oauth2");
        credential.oauth2(server.issueRefreshToken(), "https://idp.example/token", "dockyard", null);
        store.save(credential);
        return credential;
    }

    private String storedRefreshToken(String name) {
        return store.find(StoredCredential.idOf(USER, name)).orElseThrow().refreshToken();
    }

    @Test
    void shouldKeepTheRotatedTokenOfOneCredentialWhenAnotherFails() {
        oauth2("A_TOKEN");
        oauth2("B_TOKEN");
        server.breakCredential("B_TOKEN");

        CredentialException failure = assertThrows(CredentialException.class, () -> credentials.resolveAll(USER));
        assertTrue(failure.getMessage().startsWith("credential B_TOKEN could not be refreshed"), failure.getMessage());

        String rotated = storedRefreshToken("A_TOKEN");
        assertTrue(server.accepts(rotated), "the stored token of A is the one the provider issued last: " + rotated);
        clock.advance(RotatingTokenServer.LIFETIME); // A expires again: its stored token still works
        assertTrue(credentials.resolve(USER).values().containsKey("A_TOKEN"));
    }

    @Test
    void shouldTryEveryCredentialAndKeepTheLastValueOfOneThatFails() {
        oauth2("A_TOKEN");
        oauth2("B_TOKEN");
        StoredCredential plain = new StoredCredential(USER, "C_SECRET", "secret");
        plain.secret("stored-secret");
        store.save(plain);
        Map<String, String> first = credentials.resolveAll(USER);
        clock.advance(RotatingTokenServer.LIFETIME);
        server.breakCredential("A_TOKEN");

        Credentials.Resolution resolution = credentials.resolve(USER);

        assertEquals(List.of("B_TOKEN", "C_SECRET"), List.copyOf(resolution.values().keySet()));
        assertEquals(Map.of("A_TOKEN", first.get("A_TOKEN")), resolution.stale());
        assertEquals(1, resolution.failures().size());
    }

    @Test
    void shouldRefreshOnceWhenTwoResolveTheSameCredentialAtOnce() throws Exception {
        oauth2("A_TOKEN");
        server.holdCalls = new CountDownLatch(1);
        Future<Map<String, String>> first = threads.submit(() -> credentials.resolveAll(USER));
        assertTrue(server.callStarted.await(5, TimeUnit.SECONDS));
        Future<Map<String, String>> second = threads.submit(() -> credentials.resolveAll(USER));
        Thread.sleep(100); // the second is waiting for its turn, not calling the endpoint
        assertEquals(1, server.calls.get());
        server.holdCalls.countDown();

        assertEquals(first.get(5, TimeUnit.SECONDS), second.get(5, TimeUnit.SECONDS));
        assertEquals(1, server.calls.get(), "the second found the first's fresh token");
        assertTrue(server.accepts(storedRefreshToken("A_TOKEN")));
    }

    @Test
    void shouldTakeTheTokenAnotherControlPlaneStoredWhenItsOwnRefreshIsRefused() {
        oauth2("A_TOKEN");
        String spent = storedRefreshToken("A_TOKEN");
        // another control plane on the same database refreshes first, between our read and our call
        server.duringCall = ours -> {
            server.duringCall = c -> { };
            StoredCredential theirs = store.find(ours.id()).orElseThrow();
            String value = server.resolve(theirs, clock.instant(), Duration.ZERO);
            store.recordRefresh(ours.id(), spent, value, theirs.expiresAt(), theirs.refreshToken());
        };

        Map<String, String> values = credentials.resolveAll(USER);

        StoredCredential stored = store.find(StoredCredential.idOf(USER, "A_TOKEN")).orElseThrow();
        assertEquals(stored.value(), values.get("A_TOKEN"), "their fresh token is used");
        assertTrue(server.accepts(stored.refreshToken()), "and their rotation stays stored");
    }

    @Test
    void shouldNeverOverwriteARotationThatLandedFirst() {
        oauth2("A_TOKEN");
        String spent = storedRefreshToken("A_TOKEN");
        String[] theirs = new String[1];
        // another control plane stores its refresh while ours is still on the wire
        server.duringCall = ours -> {
            theirs[0] = server.issueRefreshToken();
            store.recordRefresh(ours.id(), spent, "at-theirs", clock.instant().plus(RotatingTokenServer.LIFETIME),
                    theirs[0]);
        };

        String ours = credentials.resolveAll(USER).get("A_TOKEN");

        assertTrue(ours.startsWith("at-") && !ours.equals("at-theirs"), "our own fresh token answers this call");
        assertEquals(theirs[0], storedRefreshToken("A_TOKEN"), "the rotation stored first stands");
    }

    @Test
    void shouldNotCallTheEndpointForATokenStillValidBeyondTheWindow() {
        oauth2("A_TOKEN");
        credentials.resolveAll(USER);
        clock.advance(RotatingTokenServer.LIFETIME.minus(Duration.ofMinutes(10)));
        credentials.resolveAll(USER);
        assertEquals(1, server.calls.get());
        clock.advance(Duration.ofMinutes(6)); // now within the five-minute window
        credentials.resolveAll(USER);
        assertEquals(2, server.calls.get());
    }

    @Test
    void shouldValidateAnOAuth2CredentialBeforeStoringIt() {
        StoredCredential revoked = new StoredCredential(USER, "REVOKED", "oauth2");
        revoked.oauth2("rt-never-issued", "https://idp.example/token", "dockyard", null);
        assertThrows(CredentialException.class, () -> credentials.store(revoked));
        assertTrue(store.of(USER).isEmpty(), "a credential that cannot be refreshed is not stored");

        StoredCredential good = new StoredCredential(USER, "GOOD", "oauth2");
        good.oauth2(server.issueRefreshToken(), "https://idp.example/token", "dockyard", null);
        credentials.store(good);
        assertTrue(server.accepts(storedRefreshToken("GOOD")), "stored with the token its validation rotated to");
    }

    @Test
    void shouldStoreARotatedTokenEvenWhenTheRestOfTheAnswerIsUnusable() {
        oauth2("A_TOKEN");
        server.rotateThenFail("A_TOKEN");
        assertThrows(CredentialException.class, () -> credentials.resolveAll(USER));
        assertTrue(server.accepts(storedRefreshToken("A_TOKEN")), "the token the provider issued is the one kept");
        assertTrue(credentials.resolveAll(USER).get("A_TOKEN").startsWith("at-"), "and it works next time");
    }

    @Test
    void shouldWaitForTheControlPlaneHoldingTheLeaseAndUseItsToken() throws Exception {
        oauth2("A_TOKEN");
        String id = StoredCredential.idOf(USER, "A_TOKEN");
        String spent = storedRefreshToken("A_TOKEN");
        assertTrue(store.claimRefresh(id, clock.instant(), clock.instant().plus(Credentials.LEASE)),
                "another control plane takes the lease");
        Future<Map<String, String>> ours = threads.submit(() -> credentials.resolveAll(USER));
        Thread.sleep(300); // we are waiting for it, not calling the endpoint
        assertEquals(0, server.calls.get());
        String theirs = server.issueRefreshToken();
        store.recordRefresh(id, spent, "at-theirs", clock.instant().plus(RotatingTokenServer.LIFETIME), theirs);
        store.releaseRefresh(id);

        assertEquals("at-theirs", ours.get(5, TimeUnit.SECONDS).get("A_TOKEN"));
        assertEquals(0, server.calls.get(), "the refresh token was presented once, by the other control plane");
    }
}
