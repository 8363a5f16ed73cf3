package dev.dockyard.application.images;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The browser plugin's image variant when a node does not have it. The variant is the default
 * sandbox image plus Chromium, which {@code docker/start-control-plane.sh} builds; a Docker node
 * where it was not built (that build skipped, another engine) would otherwise refuse such a runtime
 * with "image not found". Instead the request asks for the default image with the same
 * packages added: the cold path builds that runtime image once (the runtime is BUILDING_RUNTIME
 * meanwhile, with the build's progress in its events) and later requests reuse it.
 */
@ApplicationScoped
public class BrowserVariant {

    /** What the variant adds to the default image (as docker/start-control-plane.sh does). */
    public static final List<String> PACKAGES = List.of("chromium", "fonts-liberation");

    @Inject
    DockyardConfig config;

    @Inject
    BackendNodes nodes;

    BrowserVariant() {
        // for CDI
    }

    /** The variant over these nodes' images, outside CDI (tests of its callers). */
    public BrowserVariant(BackendNodes nodes, DockyardConfig config) {
        this.nodes = nodes;
        this.config = config;
    }

    /**
     * The request itself, or, for the variant its node lacks but can build, the default image with
     * its packages. A request that names another image, brings packages, a program or a snapshot of
     * its own is left as it is, and so is one for a node that builds nothing (its 404 says where the
     * variant must come from).
     */
    public ProvisioningRequest onItsNode(ProvisioningRequest request) {
        if (request.image() == null || !request.image().equals(config.sandboxBrowserImage())
                || !request.extraDependencies().isEmpty() || request.program() != null
                || request.workspace().fromSnapshot() != null) {
            return request;
        }
        try {
            RuntimeImageBuilder images = nodes.images(nodes.named(request.workspace().node()));
            if (!images.builds() || images.inspect(request.image()).isPresent()) {
                return request;
            }
        } catch (RuntimeException e) {
            // an unknown or unreachable node: the image check that follows says so, naming it
            return request;
        }
        return request.withImage(config.sandboxImage(), new ExtraDependencies(PACKAGES, ""));
    }
}
