package dev.dockyard.application.remote;

import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * Where the proxy may send a runtime's traffic, and who may send it.
 *
 * @param runtimeId   the runtime (the first path segment of its service URLs)
 * @param userId      its owner
 * @param state       whether it can take traffic now
 * @param publicKey   the key clients present (X-Session-API-Key, {@code tkn}, or the proxy's cookie);
 *                    it changes when the runtime is resumed, and the old one stops working at once
 * @param internalKey the key the sandbox's own server expects; it never leaves the control plane:
 *                    the proxy puts it in place of the public key on the way in, and the public one
 *                    back in place of it in what comes out (cookies)
 * @param services    service name ({@link #MAIN}, {@link #VSCODE}, {@code work-1}, {@code work-2})
 *                    → the sandbox port's address as the control plane reaches it
 *                    ({@code http://127.0.0.1:port}); a service that is absent is a 404
 */
public record ProxyTarget(String runtimeId, String userId, State state, String publicKey, String internalKey,
                          Map<String, URI> services) {

    public static final String MAIN = "main";
    public static final String VSCODE = "vscode";

    /**
     * Whether the runtime takes traffic: READY does; PAUSED is a 503 (clients resume); RECOVERING (its
     * sandbox stopped or its server gone while it was READY, and Dockyard starting it again) a 503 with
     * {@code Retry-After}; the rest (still provisioning) a 502.
     */
    public enum State { READY, PAUSED, RECOVERING, NOT_READY }

    public ProxyTarget {
        services = Map.copyOf(services);
    }

    public Optional<URI> service(String name) {
        return Optional.ofNullable(services.get(name));
    }

    @Override
    public String toString() {
        return "ProxyTarget[" + runtimeId + ", " + state + ", " + services + "]"; // never the keys
    }
}
