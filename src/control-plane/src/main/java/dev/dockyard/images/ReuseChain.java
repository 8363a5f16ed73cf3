package dev.dockyard.images;

import dev.dockyard.backend.RuntimeImageBuilder;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The reuse chain's decisions, apart from the engine: which image a build starts from and which
 * tags it applies. A build never starts from an image holding extra dependencies it did not ask
 * for: the source and lock tags hash the extra dependencies and their image must be labelled with
 * exactly them, and the versioned image is only started from when it is labelled clean (only a
 * build without extra dependencies applies that tag). An image without the label was built before
 * it existed and may hold anyone's script: it is built again rather than trusted.
 */
public final class ReuseChain {

    /**
     * @param from    the image the build starts from (for CACHED: the image that is already there)
     * @param install the extra dependencies the build adds ({@link ExtraDependencies#NONE} when
     *                {@code from} has them)
     * @param applies the images the build tags (none for CACHED)
     */
    public record Plan(ImageBuild.Path path, String from, ExtraDependencies install, Set<String> applies) {
    }

    private ReuseChain() {
    }

    /**
     * @param inspect what the node's engine knows of an image (its labels matter)
     * @param force   build from the base whatever exists
     */
    public static Plan plan(RuntimeImageTags tags, String baseImage, ExtraDependencies extra, boolean force,
                            Function<String, Optional<RuntimeImageBuilder.ImageInfo>> inspect) {
        String source = tags.image(tags.source());
        String lock = tags.image(tags.lock());
        String versioned = tags.image(tags.versioned());
        if (!force && holds(inspect, source, tags.extraDeps())) {
            return new Plan(ImageBuild.Path.CACHED, source, ExtraDependencies.NONE, Set.of());
        }
        if (!force && holds(inspect, lock, tags.extraDeps())) {
            return new Plan(ImageBuild.Path.LOCK, lock, ExtraDependencies.NONE, tags.applied());
        }
        if (!force && holds(inspect, versioned, RuntimeImageTags.NO_EXTRA_DEPS)) {
            return new Plan(ImageBuild.Path.VERSIONED, versioned, extra, tags.applied());
        }
        return new Plan(ImageBuild.Path.BASE, baseImage, extra, tags.applied());
    }

    /** Whether {@code image} exists and is labelled as holding exactly {@code extraDeps}. */
    public static boolean holds(Function<String, Optional<RuntimeImageBuilder.ImageInfo>> inspect, String image,
                                String extraDeps) {
        return inspect.apply(image).map(i -> extraDeps.equals(i.labels().get(RuntimeImageTags.EXTRA_DEPS_LABEL)))
                .orElse(false);
    }
}
