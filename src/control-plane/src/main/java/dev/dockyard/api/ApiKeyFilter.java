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
        if (adminKey.isPresent() && MessageDigest.isEqual(digest(given), digest(adminKey.get()))) {
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

    private static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }
}
