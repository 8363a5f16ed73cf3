package dev.dockyard.api;

import dev.dockyard.config.DockyardConfig;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/**
 * {@code X-API-Key} on every API call: the bootstrap admin key from
 * {@code dockyard.bootstrap.admin-key} (compared as SHA-256 digests in constant time), or a key
 * issued by {@code POST /api/v1/users} (found by its SHA-256 hash). Keys are never logged.
 */
@Provider
@Priority(Priorities.AUTHENTICATION)
public class ApiKeyFilter implements ContainerRequestFilter {

    public static final String HEADER = "X-API-Key";
    static final String BOOTSTRAP_ADMIN = Accounts.BOOTSTRAP_ADMIN;

    // every API call digests its key: a clone of one digest, not a provider look-up each time
    // (MessageDigest.getInstance was 0.9 % of the control plane's CPU at 528 actions/s, 2026-12-03)
    private static final MessageDigest SHA_256 = sha256();

    /** The admin key's digest, computed once per key (the configuration's) rather than per request. */
    private volatile AdminDigest admin;

    @Inject
    DockyardConfig config;

    @Inject
    Caller caller;

    @Inject
    Accounts accounts;

    @Override
    public void filter(ContainerRequestContext request) {
        String given = request.getHeaderString(HEADER);
        Optional<String> adminKey = config.bootstrapAdminKey();
        if (given == null || given.isEmpty()) {
            request.abortWith(Problem.of(Problem.Kind.UNAUTHORIZED, "The X-API-Key header is required").toResponse());
            return;
        }
        if (adminKey.isPresent() && MessageDigest.isEqual(digest(given), adminDigest(adminKey.get()))) {
            caller.authenticate(BOOTSTRAP_ADMIN, Role.ADMIN);
            return;
        }
        Optional<Accounts.Principal> principal = accounts.byKey(given);
        if (principal.isPresent()) {
            caller.authenticate(principal.get().userId(), principal.get().role());
            return;
        }
        request.abortWith(Problem.of(Problem.Kind.UNAUTHORIZED, "Unknown API key").toResponse());
    }

    private byte[] adminDigest(String key) {
        AdminDigest known = admin;
        if (known == null || !known.is(key)) {
            known = new AdminDigest(key, digest(key));
            admin = known;
        }
        return known.digest;
    }

    private static byte[] digest(String key) {
        MessageDigest sha256;
        try {
            sha256 = (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            // a provider whose digests do not clone: looked up each time, as before
            sha256 = sha256();
        }
        return sha256.digest(key.getBytes(StandardCharsets.UTF_8));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }

    /** A key with its digest; a class, not a record, so that no toString can ever print the key. */
    private static final class AdminDigest {
        private final String key;
        private final byte[] digest;

        AdminDigest(String key, byte[] digest) {
            this.key = key;
            this.digest = digest;
        }

        boolean is(String other) {
            return key.equals(other);
        }
    }
}
