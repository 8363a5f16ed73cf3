package dev.dockyard.backend.cli;

import dev.dockyard.backend.BackendNode;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.backend.InspectOnlyImages;
import dev.dockyard.backend.RuntimeImageBuilder;
import java.time.Clock;
import java.util.Optional;
import java.util.logging.Logger;

/** A node of type {@code cli}: its backend and its (absent) images, made from its configuration. */
public final class CliNode implements BackendNode {

    private static final Logger LOG = Logger.getLogger(CliNode.class.getName());

    private final CliBackend backend;
    private final RuntimeImageBuilder images;

    public CliNode(CliNodeConfig config, Clock clock) {
        this.backend = new CliBackend(config, clock);
        this.images = images(config);
        LOG.warning("Node '" + config.node() + "' is a cli node: runtimes placed there run agents' commands on this "
                + "host as this process's user, with NO isolation, in directories under " + config.root());
    }

    /**
     * A cli node's images: there are none. Dockyard's runtime image ({@code dockyard.sandbox.image})
     * names the one kind of runtime such a node runs, its executor in-process, so it is reported as a
     * runtime image; every other image is absent here, and nothing is built.
     */
    static RuntimeImageBuilder images(CliNodeConfig config) {
        return new InspectOnlyImages(image -> config.runtimeImage().equals(image)
                ? Optional.of(InspectOnlyImages.runtimeImage(image, image)) : Optional.empty(),
                () -> new ImageBuildException("node '" + config.node() + "' is a cli node: it runs no images, so none "
                        + "is built there; its runtimes are Dockyard's executor (" + config.runtimeImage()
                        + ") on this host as it is"));
    }

    @Override
    public CliBackend backend() {
        return backend;
    }

    @Override
    public RuntimeImageBuilder images() {
        return images;
    }

    @Override
    public void close() {
        backend.close();
    }
}
