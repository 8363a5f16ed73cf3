package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which runtime and service a request path names, and the path the service is sent.
 *
 * <p>The path is the one inside the web application (the request URI less the context path), still
 * percent-encoded: it is forwarded byte for byte, never decoded and re-encoded. Path mode, as
 * OpenHands' clients build service URLs: {@code /{runtime id}/vscode...} goes to VS Code with the
 * path untouched (VS Code runs with {@code --server-base-path /{runtime id}/vscode}),
 * {@code /{runtime id}/work-1...} and {@code /work-2...} to the worker ports with that prefix
 * stripped, and everything else under {@code /{runtime id}} to the main service with the runtime id
 * stripped. One exception: {@code /{runtime id}/vscode/connection_token} is the legacy action
 * server's (main service) endpoint that hands out VS Code's token, which OpenHands' legacy client
 * calls at {@code {url}/vscode/connection_token}; VS Code itself has no such path.
 *
 * @param runtimeId   the runtime, {@code rt-} and 16 hex digits (see RuntimeKeys)
 * @param service     the service name, a key of {@link ProxyTarget#services()}
 * @param prefix      what was stripped from the path (empty for VS Code): the service's public root
 *                    relative to the context path, sent as {@code X-Forwarded-Prefix}
 * @param forwardPath the path the service sees, never empty
 * @param ownHost     whether the runtime was named by the request's host ({@link #ofHost}) rather than its path
 */
public record ServiceRoute(String runtimeId, String service, String prefix, String forwardPath, boolean ownHost) {

    /** A route of path mode. */
    public ServiceRoute(String runtimeId, String service, String prefix, String forwardPath) {
        this(runtimeId, service, prefix, forwardPath, false);
    }

    private static final Pattern RUNTIME_PATH = Pattern.compile("^/(rt-[0-9a-f]{16})(/.*)?$");
    /**
     * Subdomain mode's first label: the runtime, with a service's name and a dash before it for any
     * service but the main one ({@code vscode-rt-…}, {@code work-1-rt-…}), then a dot, a port or nothing.
     */
    private static final Pattern RUNTIME_HOST =
            Pattern.compile("^(?:(vscode|work-1|work-2)-)?(rt-[0-9a-f]{16})(?:\\.[^:]*)?(?::[0-9]+)?$");
    private static final Set<String> WORKERS = Set.of("work-1", "work-2");
    /** The main service's path that looks like VS Code's (see above). */
    private static final String VSCODE_TOKEN = "/vscode/connection_token";
    /** The main service's health endpoints: OpenHands' probes call them with no key. */
    private static final Set<String> HEALTH_PATHS = Set.of("/alive", "/health", "/ready", "/server_info");

    /** The route of a path inside the application, or empty when the path is not a runtime's. */
    public static Optional<ServiceRoute> parse(String path) {
        if (path == null) {
            return Optional.empty();
        }
        Matcher m = RUNTIME_PATH.matcher(path);
        if (!m.matches()) {
            return Optional.empty();
        }
        String runtimeId = m.group(1);
        String rest = m.group(2) == null ? "" : m.group(2);
        String first = firstSegment(rest);
        if (rest.equals(VSCODE_TOKEN)) {
            return Optional.of(new ServiceRoute(runtimeId, ProxyTarget.MAIN, "/" + runtimeId, rest));
        }
        if (first.equals(ProxyTarget.VSCODE)) {
            return Optional.of(new ServiceRoute(runtimeId, ProxyTarget.VSCODE, "", path));
        }
        if (WORKERS.contains(first)) {
            String prefix = "/" + runtimeId + "/" + first;
            return Optional.of(new ServiceRoute(runtimeId, first, prefix, orRoot(rest.substring(first.length() + 1))));
        }
        return Optional.of(new ServiceRoute(runtimeId, ProxyTarget.MAIN, "/" + runtimeId, orRoot(rest)));
    }

    /**
     * The route of a request whose {@code Host} names a runtime (subdomain mode:
     * {@code rt-….sandboxes.example.com}, {@code vscode-rt-…}, {@code work-1-rt-…}), or empty when the
     * host names none. The whole origin is the runtime's: the path goes to the service as it is, the
     * runtime's cookies are scoped to {@code /}. The domain after the first label is not checked: any
     * name that resolves to this listener reaches the runtime it names, and nothing else.
     *
     * @param host the {@code Host} header, port and all
     * @param path the path inside the web application, still percent-encoded
     */
    public static Optional<ServiceRoute> ofHost(String host, String path) {
        if (host == null || path == null) {
            return Optional.empty();
        }
        Matcher m = RUNTIME_HOST.matcher(host.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return Optional.empty();
        }
        String service = m.group(1) == null ? ProxyTarget.MAIN : m.group(1);
        return Optional.of(new ServiceRoute(m.group(2), service, "", orRoot(path), true));
    }

    /** Whether this is a health probe that needs no key: GET or HEAD of the main service's health paths. */
    public boolean isHealthProbe(String method) {
        return service.equals(ProxyTarget.MAIN) && ("GET".equals(method) || "HEAD".equals(method))
                && HEALTH_PATHS.contains(forwardPath);
    }

    /**
     * The path the runtime's cookies are scoped to: the runtime's root, whatever the service; the
     * origin's root when the origin is the runtime's own.
     */
    public String runtimeRoot() {
        return ownHost ? "/" : "/" + runtimeId;
    }

    private static String firstSegment(String rest) {
        if (rest.isEmpty()) {
            return "";
        }
        int slash = rest.indexOf('/', 1);
        return slash < 0 ? rest.substring(1) : rest.substring(1, slash);
    }

    private static String orRoot(String path) {
        return path.isEmpty() ? "/" : path;
    }
}
