package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import java.net.URI;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a request to a service URL goes through, decided in a fixed order: an unknown runtime is a
 * 404; then the key (401 without it, except the main service's health probes, and never for an
 * upgrade: a tunnel to a health path is a tunnel to the sandbox's port all the same; the proxy's
 * cookie counts for GET and HEAD only); a service the runtime
 * does not have is a 404; a paused runtime a 503 (OpenHands clients resume it and retry); one being
 * recovered (its sandbox stopped while it was READY) a 503 with {@code Retry-After} (OpenHands' clients
 * resume it, which waits for the recovery, and retry); one that is still provisioning a 502 (they
 * treat it as disconnected). Checking the key before the state keeps a
 * runtime's state from anyone without its key.
 */
public sealed interface Admission {

    /**
     * The request is answered by the proxy with this status and {@code {"detail": ...}}, and a
     * {@code Retry-After} when {@code retryAfterSeconds} is above zero.
     */
    record Refused(int status, String detail, int retryAfterSeconds) implements Admission {

        public Refused(int status, String detail) {
            this(status, detail, 0);
        }
    }

    /**
     * Seconds a client is asked to wait while a runtime is being recovered: a sandbox started again
     * answers in about one (the API's {@code executor-unavailable} asks for the same).
     */
    int RECOVERY_RETRY_AFTER_SECONDS = 2;

    /**
     * The request goes to {@code service}.
     *
     * @param authenticatedBy where the client's key was; empty for a health probe without one
     */
    record Admitted(ProxyTarget target, URI service, Optional<ProxyAuthentication.Source> authenticatedBy)
            implements Admission {

        /** Whether the client's key was checked: not yet for a WebSocket signing in with its first message. */
        public boolean authenticated() {
            return authenticatedBy.filter(s -> s != ProxyAuthentication.Source.FIRST_MESSAGE).isPresent();
        }

        /** Whether the client signs in with its WebSocket's first message ({@link FirstMessageAuth}). */
        public boolean awaitsFirstMessage() {
            return authenticatedBy.filter(s -> s == ProxyAuthentication.Source.FIRST_MESSAGE).isPresent();
        }
    }

    /** As {@link #decide(Optional, ServiceRoute, String, ProxyAuthentication.Presented, boolean)}, not an upgrade. */
    static Admission decide(Optional<ProxyTarget> found, ServiceRoute route, String method,
                            ProxyAuthentication.Presented presented) {
        return decide(found, route, method, presented, false);
    }

    /** As {@link #decide(Optional, ServiceRoute, String, ProxyAuthentication.Presented, boolean, boolean)}, the cookie for reading only. */
    static Admission decide(Optional<ProxyTarget> found, ServiceRoute route, String method,
                            ProxyAuthentication.Presented presented, boolean upgrade) {
        return decide(found, route, method, presented, upgrade, false);
    }

    /**
     * @param upgrade      whether the request asks for a protocol upgrade (a tunnel): it always needs the key
     * @param cookieWrites whether the cookie signs in every method: a request the browser says comes from
     *                     a page of the runtime's own host ({@link ProxyAuthentication#sentByOwnPage})
     */
    static Admission decide(Optional<ProxyTarget> found, ServiceRoute route, String method,
                            ProxyAuthentication.Presented presented, boolean upgrade, boolean cookieWrites) {
        return decide(found, route, method, presented, upgrade, cookieWrites, false);
    }

    /**
     * Where a WebSocket may sign in with its first message: the agent server's sockets
     * ({@code /sockets/events/{id}}, {@code /sockets/bash-events}), plain segments only.
     */
    Pattern SIGN_IN_PATHS = Pattern.compile("/sockets(/[A-Za-z0-9_-]+)+");

    /**
     * @param websocket whether the upgrade is to WebSocket: a GET to one of the main service's
     *                  {@link #SIGN_IN_PATHS} that presents no key at all is admitted to sign in with
     *                  its first message ({@link ProxyAuthentication.Source#FIRST_MESSAGE}), as
     *                  OpenHands' SDK opens the agent server's event stream; only while the runtime
     *                  is READY, so a keyless client learns no more than that
     */
    static Admission decide(Optional<ProxyTarget> found, ServiceRoute route, String method,
                            ProxyAuthentication.Presented presented, boolean upgrade, boolean cookieWrites,
                            boolean websocket) {
        if (found.isEmpty()) {
            return new Refused(404, "Runtime not found");
        }
        ProxyTarget target = found.get();
        Optional<ProxyAuthentication.Source> source = ProxyAuthentication.authenticate(presented, target.publicKey());
        if (source.isPresent() && source.get() == ProxyAuthentication.Source.COOKIE && !cookieWrites
                && !ProxyAuthentication.COOKIE_METHODS.contains(method)) {
            // a page elsewhere can make the browser send the cookie with a form's POST; never the header
            return new Refused(401, "The session cookie signs in GET and HEAD requests only: send the key in "
                    + ProxyAuthentication.HEADER);
        }
        if (source.isEmpty() && upgrade && websocket && presented.isEmpty() && "GET".equals(method)
                && SIGN_IN_PATHS.matcher(route.forwardPath()).matches() && route.service().equals(ProxyTarget.MAIN)
                && target.state() == ProxyTarget.State.READY) {
            source = Optional.of(ProxyAuthentication.Source.FIRST_MESSAGE);
        }
        if (source.isEmpty() && (upgrade || !route.isHealthProbe(method))) {
            return new Refused(401, "Invalid or missing session API key");
        }
        Optional<URI> service = target.service(route.service());
        if (service.isEmpty()) {
            return new Refused(404, "Runtime has no service " + route.service());
        }
        return switch (target.state()) {
            case PAUSED -> new Refused(503, "Runtime is paused");
            case RECOVERING -> recovering("Runtime");
            case NOT_READY -> new Refused(502, "Runtime is not ready");
            case READY -> new Admitted(target, service.get(), source);
        };
    }

    /** The refusal for a runtime being recovered ({@link ProxyTarget.State#RECOVERING}). */
    static Refused recovering(String what) {
        return new Refused(503, what + " is being recovered: its sandbox stopped or its server is gone, and "
                + "Dockyard is starting it again; retry in a few seconds", RECOVERY_RETRY_AFTER_SECONDS);
    }
}
