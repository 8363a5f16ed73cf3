package dev.dockyard.backend;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The images of a node Dockyard builds nothing on (a cli, local, Kubernetes or remote node): what
 * it has is only looked up, the node's own way, and every build is refused with the node's reason,
 * which says where such an image is built instead. Nothing is listed: a node like that keeps no
 * runtime images of Dockyard's repository.
 */
public final class InspectOnlyImages implements RuntimeImageBuilder {

    private final Function<String, Optional<ImageInfo>> lookup;
    private final Supplier<? extends RuntimeException> refusal;

    /**
     * @param lookup  what the node has under a name (empty: not there)
     * @param refusal the failure a build on the node ends in, naming the node and where to build instead
     */
    public InspectOnlyImages(Function<String, Optional<ImageInfo>> lookup,
                             Supplier<? extends RuntimeException> refusal) {
        this.lookup = lookup;
        this.refusal = refusal;
    }

    /** An image the node runs as it is: a runtime image under its own name. */
    public static ImageInfo runtimeImage(String id, String name) {
        return new ImageInfo(id, Set.of(name), 0, Map.of(Labels.RUNTIME_IMAGE, "true"));
    }

    /** Nothing is built here: a request that needs a build is refused before it is accepted. */
    @Override
    public boolean builds() {
        return false;
    }

    @Override
    public Optional<ImageInfo> inspect(String image) {
        return lookup.apply(image);
    }

    @Override
    public List<ImageInfo> list(String repository) {
        return List.of();
    }

    @Override
    public String build(BuildContext context, Set<String> tags, Map<String, String> labels, Consumer<String> progress) {
        throw refusal.get();
    }

    @Override
    public String buildArchive(Path context, Set<String> tags, Map<String, String> labels, Consumer<String> progress) {
        throw refusal.get();
    }
}
