package dev.dockyard.application.images;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The browser plugin's image variant when a node does not have it. The variant is the default
 * sandbox image plus Chromium, which {@code docker/start-control-plane.sh} builds; a node where it
 * was not built (a skipped build, a new engine, a remote node) would otherwise end such a runtime
 * in ERROR "image not found". Instead the request asks for the default image with the same
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

    /** The request itself, or, for the variant its node lacks, the default image with its packages. */
    public ProvisioningRequest onItsNode(ProvisioningRequest request) {
        if (request.image() == null || !request.image().equals(config.sandboxBrowserImage()) || !request.extraDependencies().isEmpty()
                || request.program() != null || request.workspace().fromSnapshot() != null) {
            return request;
        }
        String node = request.workspace().node() != null ? request.workspace().node() : nodes.defaultNode();
        try {
            if (nodes.images(node).inspect(request.image()).isPresent()) {
                return request;
            }
        } catch (RuntimeException e) {
            // an unknown or unreachable node: the image check that follows says so, naming it
            return request;
        }
        return request.withImage(config.sandboxImage(), new ExtraDependencies(PACKAGES, ""));
    }
}
