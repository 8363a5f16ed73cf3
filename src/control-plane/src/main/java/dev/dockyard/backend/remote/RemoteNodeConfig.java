package dev.dockyard.backend.remote;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * How one remote node is reached: {@code dockyard.node.<name>.url} (the other control plane's
 * base URL), its API key from {@code .api-key} or, to keep it out of the environment,
 * {@code .api-key-file} (a file holding the key; read again when it changes, so a rotated key, e.g.
 * a mounted Secret's, is used without a restart), {@code .disconnect-after} (seconds a remote may
 * not answer before its runtimes are disconnected) and {@code .call-timeout} (seconds a call may
 * take; a start or a resume answers at once there, so this bounds no sandbox's boot).
 *
 * @param instance this control plane's instance: the prefix of its runtimes' sessions there
 */
public record RemoteNodeConfig(String node, URI url, RemoteKey key, Duration disconnectAfter, Duration callTimeout,
                               String instance) {

    public RemoteNodeConfig {
        String text = url.toString();
        url = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    }

    /**
     * The node's settings.
     *
     * @throws IllegalStateException naming the key when one is missing or malformed: the node is not
     *                               guessed at
     */
    public static RemoteNodeConfig read(Config config, String node, String instance) {
        String prefix = "dockyard.node." + node + ".";
        String url = value(config, prefix + "url").orElseThrow(() -> new IllegalStateException(prefix
                + "url is required for a remote node: the other control plane's base URL, e.g. http://10.0.0.5:9080"));
        URI parsed;
        try {
            parsed = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + "url: '" + url + "' is not a URL");
        }
        if (!("http".equals(parsed.getScheme()) || "https".equals(parsed.getScheme())) || parsed.getHost() == null
                || parsed.getRawQuery() != null || parsed.getRawUserInfo() != null) {
            throw new IllegalStateException(prefix + "url: '" + url + "' must be http(s)://host[:port][/path], "
                    + "with no query and no credentials (the key is api-key or api-key-file)");
        }
        Optional<RemoteKey> key = value(config, prefix + "api-key").map(RemoteKey::given);
        if (key.isEmpty()) {
            key = value(config, prefix + "api-key-file").map(file -> RemoteKey.inFile(prefix + "api-key-file",
                    Path.of(file)));
        }
        RemoteKey apiKey = key.orElseThrow(() -> new IllegalStateException(prefix + "api-key or " + prefix
                + "api-key-file is required for a remote node: an API key of a user of the other control plane"));
        int disconnectAfter = config.getOptionalValue(prefix + "disconnect-after", Integer.class).orElse(30);
        int callTimeout = config.getOptionalValue(prefix + "call-timeout", Integer.class).orElse(30);
        if (disconnectAfter < 1 || callTimeout < 1) {
            throw new IllegalStateException(prefix + "disconnect-after and " + prefix + "call-timeout are seconds >= 1");
        }
        return new RemoteNodeConfig(node, parsed, apiKey, Duration.ofSeconds(disconnectAfter),
                Duration.ofSeconds(callTimeout), instance);
    }

    private static Optional<String> value(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::strip).filter(v -> !v.isEmpty());
    }

    /** The key to send now: the file's current content where it comes from a file. */
    public String apiKey() {
        return key.current();
    }

    @Override
    public String toString() {
        // never the key
        return "RemoteNodeConfig[node=" + node + ", url=" + url + ", disconnectAfter=" + disconnectAfter + "]";
    }
}
