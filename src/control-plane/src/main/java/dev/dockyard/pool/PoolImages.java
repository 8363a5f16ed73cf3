package dev.dockyard.pool;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.RuntimeImages;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The image a pool's members run. A pool of Dockyard's executor names a base image, and its
 * members run the runtime image built on it for today's bundle (built here when missing, as a
 * cold boot would); a pool of another image's program runs that image as it is. The id of the
 * image the members should run now is what tells the keeper that an image was rebuilt, and its
 * members must drain.
 */
@ApplicationScoped
public class PoolImages {

    private static final Logger LOG = Logger.getLogger(PoolImages.class.getName());

    @Inject
    RuntimeImages images;

    @Inject
    PoolHealth health;

    @Inject
    Clock clock;

    /** The image a new member of the pool runs, its runtime image resolved (or built) first where it has one. */
    String forBoot(PoolDefinition pool) {
        if (pool.program().isPresent()) {
            return pool.image();
        }
        return images.resolve(pool.node(), pool.image(), ExtraDependencies.NONE,
                build -> LOG.info("Pool '" + pool.name() + "': building runtime image for " + pool.image()
                        + " (build " + build.id() + ")")).image();
    }

    /** The id of {@code image} on the pool's node; refused when the node does not have it. */
    String idOf(PoolDefinition pool, String image) {
        return images.inspect(pool.node(), image).map(RuntimeImageBuilder.ImageInfo::id)
                .orElseThrow(() -> new BackendException("image '" + image + "' is not on node '"
                        + pool.node() + "'"));
    }

    /** The id of the image the pool's members should run now, without building anything; empty when unknown. */
    Optional<String> currentId(PoolDefinition pool) {
        try {
            if (pool.program().isPresent()) {
                // another image's own server runs the image as it is
                return images.inspect(pool.node(), pool.image()).map(RuntimeImageBuilder.ImageInfo::id);
            }
            Optional<String> id = images.current(pool.node(), pool.image()).map(RuntimeImageBuilder.ImageInfo::id);
            Instant wait = health.waitsUntil(pool.name());
            if (id.isEmpty() && (wait == null || wait.isBefore(clock.instant()))) {
                // a base whose runtime image of today's bundle is not built yet: build it (or join
                // the build under way), and the members of the old one drain once it exists
                images.submit(pool.node(), pool.image(), ExtraDependencies.NONE, false).image()
                        .exceptionally(failed -> {
                            health.failed(pool.name(), "building its runtime image failed: " + failed.getMessage());
                            return null;
                        });
            }
            return id;
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
