package dev.dockyard.backend.remote;

import dev.dockyard.images.RuntimeImageBuilder;
import java.util.logging.Logger;

/** A node of type {@code remote}: its client, its backend and its images (see the package). */
public final class RemoteNode {

    private static final Logger LOG = Logger.getLogger(RemoteNode.class.getName());

    private final RemoteBackend backend;
    private final RuntimeImageBuilder images;

    public RemoteNode(RemoteNodeConfig settings, RemoteCalls calls, int executorPort) {
        RemoteControlPlane remote = new RemoteControlPlane(settings);
        this.backend = new RemoteBackend(settings, remote, calls, executorPort);
        this.images = new RemoteImages(settings.node(), remote, calls);
        LOG.info("Node '" + settings.node() + "': remote Dockyard at " + settings.url() + "; its runtimes are "
                + "disconnected after " + settings.disconnectAfter().toSeconds() + " s without an answer");
    }

    public RemoteBackend backend() {
        return backend;
    }

    public RuntimeImageBuilder images() {
        return images;
    }
}
