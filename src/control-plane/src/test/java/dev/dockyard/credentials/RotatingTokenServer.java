package dev.dockyard.credentials;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An OAuth2 provider whose refresh tokens are single use, as GitHub's and Google's rotating ones
 * are: answering a refresh spends the token it was given. Tests can hold a call (to line up a
 * second one behind it), run something in the middle of one, or make one credential's calls fail.
 */
class RotatingTokenServer implements CredentialProvider {

    static final Duration LIFETIME = Duration.ofMinutes(60);

    private final Set<String> valid = new HashSet<>();
    private final Set<String> broken = new HashSet<>();
    private final Set<String> rotateThenFail = new HashSet<>();
    private final AtomicInteger issued = new AtomicInteger();
    final AtomicInteger calls = new AtomicInteger();
    volatile CountDownLatch holdCalls;
    volatile CountDownLatch callStarted = new CountDownLatch(1);
    volatile Consumer<StoredCredential> duringCall = c -> { };

    @Override
    public String type() {
        return "oauth2";
    }

    synchronized String issueRefreshToken() {
        String token = "rt-" + issued.incrementAndGet();
        valid.add(token);
        return token;
    }

    synchronized boolean accepts(String refreshToken) {
        return valid.contains(refreshToken);
    }

    synchronized void breakCredential(String name) {
        broken.add(name);
    }

    /** Its next refresh spends the token and issues a new one, then the answer is unusable. */
    synchronized void rotateThenFail(String name) {
        rotateThenFail.add(name);
    }

    @Override
    public boolean needsRefresh(StoredCredential credential, Instant now, Duration window) {
        return credential.value() == null || credential.expiresAt() == null
                || !credential.expiresAt().isAfter(now.plus(window));
    }

    @Override
    public String resolve(StoredCredential credential, Instant now, Duration window) {
        if (!needsRefresh(credential, now, window)) {
            return credential.value();
        }
        calls.incrementAndGet();
        callStarted.countDown();
        CountDownLatch hold = holdCalls;
        if (hold != null) {
            try {
                hold.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        duringCall.accept(credential);
        String access;
        String rotated;
        synchronized (this) {
            if (broken.contains(credential.name()) || !valid.remove(credential.refreshToken())) {
                throw new CredentialException("credential " + credential.name() + " could not be refreshed: "
                        + "invalid_grant");
            }
            access = "at-" + issued.incrementAndGet();
            rotated = issueRefreshToken();
            if (rotateThenFail.remove(credential.name())) {
                credential.refreshed(credential.value(), credential.expiresAt(), rotated);
                throw new CredentialException("credential " + credential.name() + " could not be refreshed: "
                        + "HTTP 200 without an access_token");
            }
        }
        credential.refreshed(access, now.plus(LIFETIME), rotated);
        return access;
    }
}
