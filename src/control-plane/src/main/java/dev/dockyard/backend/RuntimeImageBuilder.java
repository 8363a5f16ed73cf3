package dev.dockyard.backend;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Builds and finds images on one backend node. Calls block on the engine and must never be made
 * inside a transaction. Adapters: {@code backend.docker.DockerImageBuilder}.
 */
public interface RuntimeImageBuilder {

    /**
     * An image as the engine knows it.
     *
     * @param digests its repository digests ({@code repo@sha256:...}): only images pulled from or
     *                pushed to a registry have any
     */
    record ImageInfo(String id, Set<String> tags, long sizeBytes, Map<String, String> labels, Set<String> digests) {

        public ImageInfo {
            tags = Set.copyOf(tags);
            labels = Map.copyOf(labels);
            digests = Set.copyOf(digests);
        }

        /** An image known by its tags alone. */
        public ImageInfo(String id, Set<String> tags, long sizeBytes, Map<String, String> labels) {
            this(id, tags, sizeBytes, labels, Set.of());
        }
    }

    /** Whether images are built on this node at all (a node that only runs what it has says no). */
    default boolean builds() {
        return true;
    }

    Optional<ImageInfo> inspect(String image);

    default boolean imageExists(String image) {
        return inspect(image).isPresent();
    }

    /** Every image of {@code repository}, with its tags. */
    List<ImageInfo> list(String repository);

    /**
     * Removes this node's images labelled as {@code userId}'s ({@code dev.dockyard.owner}: their
     * builds, a fork's image, what a snapshot's removal left), for a user who is deleted: an id given
     * to a new account later must own none of them. Returns how many went; an image in use stays
     * (logged). Nodes that keep no users' images have none.
     */
    default int removeOwnedBy(String userId) {
        return 0;
    }

    /**
     * Builds {@code context} and applies every one of {@code tags} (full names, repository:tag);
     * reports each line of the build's output to {@code progress}. Returns the image id.
     *
     * @throws ImageBuildException when the build fails: the message names the failing step and
     *                             ends with its output
     */
    String build(BuildContext context, Set<String> tags, Map<String, String> labels, Consumer<String> progress);

    /**
     * Builds a client's own build context ({@code context}: a tar, gzip-compressed or not, with a
     * Dockerfile at its top) and applies {@code tags}. Same bounds and failures as {@link #build}.
     */
    String buildArchive(Path context, Set<String> tags, Map<String, String> labels,
                        Consumer<String> progress);
}
