package dev.dockyard.proxy;

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
 */
public record ServiceRoute(String runtimeId, String service, String prefix, String forwardPath) {

    private static final Pattern RUNTIME_PATH = Pattern.compile("^/(rt-[0-9a-f]{16})(/.*)?$");
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

    /** Whether this is a health probe that needs no key: GET or HEAD of the main service's health paths. */
    public boolean isHealthProbe(String method) {
        return service.equals(ProxyTarget.MAIN) && ("GET".equals(method) || "HEAD".equals(method))
                && HEALTH_PATHS.contains(forwardPath);
    }

    /** The path the runtime's cookies are scoped to: the runtime's root, whatever the service. */
    public String runtimeRoot() {
        return "/" + runtimeId;
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
