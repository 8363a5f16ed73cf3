package dev.dockyard.backend.cli;

import dev.dockyard.images.RuntimeImageBuilder;
import java.time.Clock;
import java.util.logging.Logger;

/** A node of type {@code cli}: its backend and its (absent) images, made from its configuration. */
public final class CliNode implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(CliNode.class.getName());

    private final CliBackend backend;
    private final RuntimeImageBuilder images;

    public CliNode(CliNodeConfig config, Clock clock) {
        this.backend = new CliBackend(config, clock);
        this.images = new CliImages(config);
        LOG.warning("Node '" + config.node() + "' is a cli node: runtimes placed there run agents' commands on this "
                + "host as this process's user, with NO isolation, in directories under " + config.root());
    }

    public CliBackend backend() {
        return backend;
    }

    public RuntimeImageBuilder images() {
        return images;
    }

    @Override
    public void close() {
        backend.close();
    }
}
