package dev.dockyard.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Where clients reach a runtime's services: URLs on the services' own listener
 * ({@code dockyard.proxy.port}), built from a <em>public base</em> that is handed to the sandbox too
 * (OpenHands' servers build their links from {@code RUNTIME_URL}). Two forms of base:
 * <ul>
 * <li>path mode, {@code http://host:9081}: the runtime is {@code {base}/{runtime id}} and a named
 *     service {@code {base}/{runtime id}/{service}} (OpenHands' path mode);</li>
 * <li>subdomain mode, {@code http://{runtime}.host:9081}: the runtime is a host of its own,
 *     {@code http://rt-….host:9081}, and a named service {@code http://{service}-rt-….host:9081}
 *     (as OpenHands and E2B name theirs), each an origin of its own.</li>
 * </ul>
 * A base stored before the services had a listener of their own keeps its form: the path-mode URL on
 * the port it names. It lives with the settings because it is what {@code dockyard.proxy.mode} and
 * {@code dockyard.proxy.public-url} mean, and the settings check them with it at startup; the
 * settings import nothing else of Dockyard's, so every package may read them.
 */
public final class ServiceUrls {

    /** The place of the runtime's id in a subdomain-mode base. */
    public static final String RUNTIME = "{runtime}";

    /** How service URLs name a runtime (dockyard.proxy.mode). */
    public enum Mode {
        PATH, SUBDOMAIN;

        /** A mode by its setting's value, {@code path} or {@code subdomain}. */
        public static Mode of(String setting) {
            String s = setting == null ? "" : setting.strip().toLowerCase(Locale.ROOT);
            return switch (s) {
                case "", "path" -> PATH;
                case "subdomain" -> SUBDOMAIN;
                default -> throw new IllegalArgumentException("dockyard.proxy.mode must be path or subdomain, not "
                        + setting);
            };
        }
    }

    private ServiceUrls() {
    }

    /**
     * The public base of the services' listener.
     *
     * @param configured dockyard.proxy.public-url, or null: where clients reach the listener from
     *                   outside (a front end's {@code https://sandboxes.example.com}); in subdomain
     *                   mode its host is the domain runtimes' hosts go under, and it has no path
     * @param scheme     the scheme the client used for the API, when nothing is configured
     * @param host       the host the client used for the API (without port; IPv6 in brackets)
     * @param port       the services' port, when nothing is configured
     * @throws IllegalStateException when the configured URL is not an http(s) URL with a host, or has
     *                               a path in subdomain mode
     */
    public static String publicBase(Mode mode, String configured, String scheme, String host, int port) {
        if (configured != null && !configured.isBlank()) {
            URI url = configuredUrl(configured.strip(), mode);
            String base = url.getScheme() + "://" + url.getRawAuthority() + stripped(url.getRawPath());
            return mode == Mode.PATH ? base : url.getScheme() + "://" + RUNTIME + "." + url.getRawAuthority();
        }
        if (mode == Mode.PATH) {
            return scheme + "://" + host + ":" + port;
        }
        if (isLoopback(host)) {
            // browsers resolve *.localhost to the loopback themselves
            return scheme + "://" + RUNTIME + ".localhost:" + port;
        }
        if (isAddress(host)) {
            // no host of its own can go under an address: path mode there
            return scheme + "://" + host + ":" + port;
        }
        return scheme + "://" + RUNTIME + "." + host + ":" + port;
    }

    private static URI configuredUrl(String configured, Mode mode) {
        URI url;
        try {
            url = new URI(configured);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("dockyard.proxy.public-url: '" + configured + "' is not a URL");
        }
        if (url.getHost() == null || !("http".equalsIgnoreCase(url.getScheme()) || "https".equalsIgnoreCase(url.getScheme()))
                || url.getRawQuery() != null || url.getRawFragment() != null) {
            throw new IllegalStateException("dockyard.proxy.public-url: '" + configured
                    + "' must be http(s)://host[:port][/path]");
        }
        if (mode == Mode.SUBDOMAIN && !stripped(url.getRawPath()).isEmpty()) {
            throw new IllegalStateException("dockyard.proxy.public-url: '" + configured + "' has a path; in subdomain "
                    + "mode runtimes are hosts under its host, at their root");
        }
        if (mode == Mode.SUBDOMAIN && isAddress(url.getHost())) {
            throw new IllegalStateException("dockyard.proxy.public-url: '" + configured + "' is an address; subdomain "
                    + "mode needs a domain name runtimes' hosts can go under");
        }
        return url;
    }

    private static String stripped(String path) {
        String p = path == null ? "" : path;
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    private static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("[::1]") || h.equals("::1");
    }

    private static boolean isAddress(String host) {
        return host.startsWith("[") || host.contains(":") || host.matches("[0-9.]+");
    }

    /** The runtime's URL: its main service. */
    public static String runtimeUrl(String publicBase, String runtimeId) {
        return publicBase.contains(RUNTIME) ? publicBase.replace(RUNTIME, runtimeId) : publicBase + "/" + runtimeId;
    }

    /** A named service's URL ({@code work-1}, {@code work-2}, {@code vscode}). */
    public static String serviceUrl(String publicBase, String runtimeId, String service) {
        return publicBase.contains(RUNTIME) ? publicBase.replace(RUNTIME, service + "-" + runtimeId)
                : publicBase + "/" + runtimeId + "/" + service;
    }
}
