package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.InspectOnlyImages;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * A node of type {@code remote}: its client, its backend and its images (see the package). What
 * its settings risk is said once, at startup: a plain {@code http://} URL to another host carries
 * the node's API key in clear, and a call-timeout too long for the retries' bound leaves a call
 * that timed out without its retries.
 */
public final class RemoteNode implements BackendNode {

    private static final Logger LOG = Logger.getLogger(RemoteNode.class.getName());

    private final RemoteBackend backend;
    private final RuntimeImageBuilder images;

    /**
     * @param sandboxUid the numeric user a workspace's files get in an archive taken there, so that a
     *                   Docker sandbox's user owns them once moved ({@code dockyard.sandbox.user})
     */
    public RemoteNode(RemoteNodeConfig settings, RemoteCalls calls, int executorPort, int sandboxUid, Clock clock,
                      Config config) {
        RemoteControlPlane remote = new RemoteControlPlane(settings, clock);
        this.backend = new RemoteBackend(settings, remote, calls, executorPort, sandboxUid);
        // the remote's images are the remote's: what its engine has is asked (its GET /api/v1/images/exists),
        // nothing is built or pushed from here; a base image the remote has but that is not a runtime
        // image is refused where it is resolved, with a message saying where to build it
        this.images = new InspectOnlyImages(image -> calls.idempotent(() -> remote.runtimeImage(image))
                .map(runtimeImage -> new RuntimeImageBuilder.ImageInfo(image, Set.of(image), -1,
                        runtimeImage ? Map.of(Labels.RUNTIME_IMAGE, "true") : Map.of())),
                () -> new BackendException("node '" + settings.node() + "' is a remote Dockyard: runtime images are "
                        + "built there (its POST /api/v1/images/builds), not from here"));
        LOG.info("Node '" + settings.node() + "': remote Dockyard at " + settings.url() + "; its runtimes are "
                + "disconnected after " + settings.disconnectAfter().toSeconds() + " s without an answer");
        warnings(settings, RemoteCalls.retriesAfterTimeout(config, settings.callTimeout())).forEach(LOG::warning);
    }

    /** What is worth an operator's attention in a node's settings; never its key. */
    static List<String> warnings(RemoteNodeConfig settings, int retriesAfterTimeout) {
        List<String> warnings = new ArrayList<>();
        if ("http".equalsIgnoreCase(settings.url().getScheme()) && !loopback(settings.url())) {
            warnings.add("Node '" + settings.node() + "': " + settings.url() + " is plain http to another host: the "
                    + "node's API key (a user key of that control plane) and the runtimes' session keys cross the "
                    + "network in clear; use https (docs/backends.md \"Remote nodes\")");
        }
        if (retriesAfterTimeout < RemoteCalls.MAX_RETRIES) {
            warnings.add("Node '" + settings.node() + "': a call that takes its whole call-timeout ("
                    + settings.callTimeout().toSeconds() + " s) is retried " + retriesAfterTimeout + " time(s), not "
                    + RemoteCalls.MAX_RETRIES + ": the retries start within " + RemoteCalls.MAX_DURATION_S + " s "
                    + "(RemoteCalls); lower dockyard.node." + settings.node() + ".call-timeout");
        }
        return warnings;
    }

    /**
     * Whether the URL's host is this machine's loopback: {@code localhost} or a loopback address
     * literal. A name is not resolved (nothing is looked up at startup): any other name counts as
     * another host.
     */
    static boolean loopback(URI url) {
        String host = url.getHost();
        if (host == null) {
            return false;
        }
        host = host.toLowerCase(Locale.ROOT);
        if (host.equals("localhost")) {
            return true;
        }
        if (host.matches("127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}")) {
            return true;
        }
        if (host.startsWith("[") && host.endsWith("]") && host.contains(":")) {
            try {
                // an IPv6 literal is parsed, never looked up
                return InetAddress.getByName(host.substring(1, host.length() - 1)).isLoopbackAddress();
            } catch (UnknownHostException e) {
                return false;
            }
        }
        return false;
    }

    @Override
    public RemoteBackend backend() {
        return backend;
    }

    @Override
    public RuntimeImageBuilder images() {
        return images;
    }
}
