package dev.dockyard.backend.kubernetes;

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
 * The images of a Kubernetes node: the cluster pulls them from its registries, and Dockyard can
 * neither see nor build them there. Every image named is taken as a runtime image as it is (one
 * that is not, or cannot be pulled, fails the pod, and so the runtime, with the cluster's reason).
 */
final class RegistryImages implements RuntimeImageBuilder {

    private final String node;

    RegistryImages(String node) {
        this.node = node;
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
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
        return new ImageBuildException("node '" + node + "' is a Kubernetes node: Dockyard builds no images there; "
                + "build the runtime image elsewhere and push it to a registry the cluster pulls from");
    }
}
