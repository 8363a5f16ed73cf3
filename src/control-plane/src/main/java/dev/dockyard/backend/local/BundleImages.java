package dev.dockyard.backend.local;

import dev.dockyard.backend.Labels;
import dev.dockyard.images.BuildContext;
import dev.dockyard.images.ImageBuildException;
import dev.dockyard.images.RuntimeImageBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The "images" of a local node: it runs no image, only the executor bundle, which serves the image
 * names the node is configured with (Dockyard's runtime image by default). Any other image is not
 * on this node, and none can be built here: the request is refused, naming the node, rather than
 * served by something else than it asked for.
 */
final class BundleImages implements RuntimeImageBuilder {

    private final LocalNodeConfig config;

    BundleImages(LocalNodeConfig config) {
        this.config = config;
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
        if (!config.images().contains(image)) {
            return Optional.empty();
        }
        return Optional.of(new ImageInfo(bundleId(), Set.of(image), 0, Map.of(Labels.RUNTIME_IMAGE, "true")));
    }

    /** Changes with the bundle's executor: a warm pool's members of an older bundle are replaced. */
    private String bundleId() {
        Path war = config.bundle().resolve("wlp/usr/servers/executor/apps/executor.war");
        try {
            return "local-bundle:" + config.bundle() + "@" + Files.getLastModifiedTime(war).toMillis() + "/"
                    + Files.size(war);
        } catch (IOException e) {
            return "local-bundle:" + config.bundle();
        }
    }

    @Override
    public List<ImageInfo> list(String repository) {
        return List.of();
    }

    @Override
    public String build(BuildContext context, Set<String> tags, Map<String, String> labels, Consumer<String> progress) {
        throw refused();
    }

    @Override
    public String buildArchive(Path context, Set<String> tags, Map<String, String> labels, Consumer<String> progress) {
        throw refused();
    }

    private ImageBuildException refused() {
        return new ImageBuildException("node '" + config.node() + "' is a local node: it runs the executor bundle as "
                + "host processes, for the images " + config.images() + ", and builds no images");
    }
}
