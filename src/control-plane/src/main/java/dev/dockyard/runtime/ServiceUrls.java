package dev.dockyard.runtime;

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
 * the port it names.
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
     *                   mode its host is the domain runtimes' hosts go under
     * @param scheme     the scheme the client used for the API, when nothing is configured
     * @param host       the host the client used for the API (without port; IPv6 in brackets)
     * @param port       the services' port, when nothing is configured
     */
    public static String publicBase(Mode mode, String configured, String scheme, String host, int port) {
        String base;
        if (configured != null && !configured.isBlank()) {
            base = configured.strip();
            while (base.endsWith("/")) {
                base = base.substring(0, base.length() - 1);
            }
        } else {
            base = scheme + "://" + host + ":" + port;
        }
        if (mode == Mode.PATH) {
            return base;
        }
        int authority = base.indexOf("://") + 3;
        return base.substring(0, authority) + RUNTIME + "." + base.substring(authority);
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
