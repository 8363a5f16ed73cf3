package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.Labels;
import dev.dockyard.images.BuildContext;
import dev.dockyard.images.RuntimeImageBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A remote node's images are the remote's: what its engine has is asked (its
 * {@code GET /api/v1/images/exists}), and nothing is built or pushed from here. A base image the
 * remote has but that is not a runtime image is refused with a message saying where to build it.
 */
final class RemoteImages implements RuntimeImageBuilder {

    private final String node;
    private final RemoteControlPlane remote;
    private final RemoteCalls calls;

    RemoteImages(String node, RemoteControlPlane remote, RemoteCalls calls) {
        this.node = node;
        this.remote = remote;
        this.calls = calls;
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
        return calls.idempotent(() -> remote.runtimeImage(image)).map(runtimeImage -> new ImageInfo(image,
                Set.of(image), -1, runtimeImage ? Map.of(Labels.RUNTIME_IMAGE, "true") : Map.of()));
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

    private BackendException refused() {
        return new BackendException("node '" + node + "' is a remote Dockyard: runtime images are built there "
                + "(its POST /api/v1/images/builds), not from here");
    }
}
