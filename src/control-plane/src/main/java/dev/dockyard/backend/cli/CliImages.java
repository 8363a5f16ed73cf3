package dev.dockyard.backend.cli;

import dev.dockyard.backend.Labels;
import dev.dockyard.images.BuildContext;
import dev.dockyard.images.ImageBuildException;
import dev.dockyard.images.RuntimeImageBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The "images" of a cli node: there are none. Dockyard's runtime image ({@code dockyard.sandbox.image})
 * names the one kind of runtime such a node runs, its executor in-process, so it is reported as a
 * runtime image; every other image is absent here, and nothing is built.
 */
final class CliImages implements RuntimeImageBuilder {

    private final CliNodeConfig node;

    CliImages(CliNodeConfig node) {
        this.node = node;
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
        if (!node.runtimeImage().equals(image)) {
            return Optional.empty();
        }
        return Optional.of(new ImageInfo(image, Set.of(image), 0, Map.of(Labels.RUNTIME_IMAGE, "true")));
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
        return new ImageBuildException("node '" + node.node() + "' is a cli node: it runs no images, so none is built "
                + "there; its runtimes are Dockyard's executor (" + node.runtimeImage() + ") on this host as it is");
    }
}
