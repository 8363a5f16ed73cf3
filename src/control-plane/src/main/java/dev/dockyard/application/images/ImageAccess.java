package dev.dockyard.application.images;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder.ImageInfo;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.RuntimeImageTags;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * Who may use which image, the one rule every request that names an image asks (a provision's
 * {@code sandbox.image}, the Remote Runtime API's {@code /start} and {@code /image_exists},
 * {@code GET /api/v1/images} and {@code /images/exists}; a fork or a start {@code fromSnapshot} names
 * a snapshot instead, which only its owner may use). Images on an engine are shared by its tenants,
 * so an image is usable only when one of these holds, in this order:
 * <ol>
 * <li>the caller is an admin: admins use everything;</li>
 * <li>the image has an owner: a user's build (labelled {@link Labels#OWNER}), a snapshot's or a
 * fork's image (labelled {@link Labels#OWNER}, or else the owner of the snapshot its
 * {@link Labels#SNAPSHOT_ID} names): only that user. Such an image holds the user's files (a
 * snapshot carries the home directory). A committed sandbox no snapshot record claims, and a client's
 * build from before builds were labelled, have no known owner: admins only. An owned image is never
 * made usable by the rules below, whatever it is tagged;</li>
 * <li>it is Dockyard's sandbox image ({@code dockyard.sandbox.image}, {@code dockyard.sandbox.browser-image}):
 * everyone;</li>
 * <li>it is a runtime image Dockyard's image builder made from a base (tagged in
 * {@code dockyard.images.repository}, labelled with its base) without extra dependencies: whoever may
 * use its base. It is the base plus the executor bundle and holds nothing of a user's. One with
 * extra dependencies is named directly by admins only; a user gets it by asking for the same base
 * and extra dependencies, whose content the user then holds already. (A runtime image of an owned
 * base inherits its base's owner label, and so stays the owner's);</li>
 * <li>one of its tags (or repository digests) matches a pattern of {@code dockyard.images.allowed}
 * (env {@code DOCKYARD_IMAGES_ALLOWED}, comma-separated, {@code *} any characters, e.g.
 * {@code python:*,ghcr.io/acme/*}; a pattern without a tag matches every tag): everyone. Empty by
 * default: other images on the engine are for admins only.</li>
 * </ol>
 * Images are named in full: {@code repo[:tag]}, {@code repo@sha256:<64 hex>} or the id
 * {@code sha256:<64 hex>}; the engine's id prefixes ({@code c2}) name nothing. An image the caller
 * may not use is answered like one that does not exist, so that nothing about it leaks.
 */
@ApplicationScoped
public class ImageAccess {

    /** Base images a runtime image's base may itself be derived from, at most (no label loop runs forever). */
    private static final int MAX_DEPTH = 4;
    private static final String LEGACY_CONTEXT_BUILD = "build-context";

    @Inject
    BackendNodes nodes;

    @Inject
    DockyardConfig config;

    @Inject
    WorkspaceRecords records;

    ImageAccess() {
        // for CDI
    }

    /** An access rule over these nodes' images, outside CDI (tests of its callers). */
    public ImageAccess(BackendNodes nodes, DockyardConfig config, WorkspaceRecords records) {
        this.nodes = nodes;
        this.config = config;
        this.records = records;
    }

    /**
     * The image {@code reference} names on {@code node} (null: the default node), if it is there and
     * the caller may use it; else empty, whichever of the two it is.
     *
     * @throws BackendNodes.UnknownNodeException when no such node is configured
     */
    public Optional<ImageInfo> usable(String node, String reference, String userId, boolean admin) {
        return usable(node, reference, userId, admin, 0);
    }

    /**
     * As {@link #usable}, else refused as not found (404), in the words of an image that is not there:
     * Dockyard pulls from no registry.
     */
    public ImageInfo require(String node, String reference, String userId, boolean admin) {
        return usable(node, reference, userId, admin).orElseThrow(() -> notFound(node, reference));
    }

    /** What the caller hears of an image it may not use or that is not there: the same words. */
    public Refused notFound(String node, String reference) {
        return new Refused(Refused.Reason.NOT_FOUND, "image '" + reference + "' not found on node '"
                + nodes.named(node) + "' (images are never pulled: an admin loads or "
                + "builds it there, and other users' images are not yours to use)");
    }

    /** Whether the caller may use {@code image}, an image of {@code node} (a listing's, say). */
    public boolean mayUse(String node, ImageInfo image, String userId, boolean admin) {
        return admin || allows(node, image, userId, 0);
    }

    private Optional<ImageInfo> usable(String node, String reference, String userId, boolean admin, int depth) {
        if (reference == null || reference.isBlank() || depth > MAX_DEPTH) {
            return Optional.empty();
        }
        return nodes.images(node).inspect(reference).filter(info -> ImageNames.names(reference, info))
                .filter(info -> admin || allows(node, info, userId, depth));
    }

    private boolean allows(String node, ImageInfo image, String userId, int depth) {
        Optional<String> owner = owner(image);
        if (owner.isPresent()) {
            return owner.get().equals(userId);
        }
        if (ImageNames.taggedAs(image, config.sandboxImage()) || ImageNames.taggedAs(image, config.sandboxBrowserImage())) {
            return true;
        }
        String base = image.labels().get(Labels.BASE_IMAGE);
        if ("true".equals(image.labels().get(Labels.RUNTIME_IMAGE)) && base != null
                && ImageNames.inRepository(image, config.imageRepository())) {
            return RuntimeImageTags.NO_EXTRA_DEPS.equals(image.labels().get(RuntimeImageTags.EXTRA_DEPS_LABEL))
                    && usable(node, base, userId, false, depth + 1).isPresent();
        }
        return ImageNames.matchesAny(image, allowed());
    }

    /**
     * The user an image belongs to; "" when it is a user's but whose is unknown (nobody's but the
     * admins'); empty when it is nobody's.
     */
    Optional<String> owner(ImageInfo image) {
        String owner = image.labels().get(Labels.OWNER);
        if (owner != null) {
            return Optional.of(owner);
        }
        String snapshot = image.labels().get(Labels.SNAPSHOT_ID);
        if (snapshot != null) {
            return Optional.of(records.snapshot(snapshot).map(Snapshot::userId).orElse(""));
        }
        if (image.labels().containsKey(Labels.RUNTIME_ID)
                || LEGACY_CONTEXT_BUILD.equals(image.labels().get(Labels.BASE_IMAGE))) {
            return Optional.of("");
        }
        return Optional.empty();
    }

    private List<String> allowed() {
        return config.imagesAllowed();
    }
}
