package dev.dockyard.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A node that builds nothing: it looks images up its own way and refuses every build with its reason. */
class InspectOnlyImagesTest {

    private final RuntimeImageBuilder.ImageInfo known = InspectOnlyImages.runtimeImage("id-1", "dockyard/sandbox:latest");
    private final ImageBuildException refusal = new ImageBuildException("node 'n1' builds nothing; build it there");
    private final InspectOnlyImages images = new InspectOnlyImages(
            name -> name.equals("dockyard/sandbox:latest") ? Optional.of(known) : Optional.empty(), () -> refusal);

    @Test
    void shouldLookImagesUpTheNodesWayAndListNone() {
        assertSame(known, images.inspect("dockyard/sandbox:latest").orElseThrow());
        assertEquals(Map.of("dev.dockyard.runtime-image", "true"), known.labels());
        assertEquals(Set.of("dockyard/sandbox:latest"), known.tags());
        assertTrue(images.inspect("python:3.12").isEmpty());
        assertTrue(images.list("dockyard/runtime").isEmpty());
    }

    @Test
    void shouldRefuseEveryBuildWithTheNodesReason() {
        assertSame(refusal, assertThrows(ImageBuildException.class,
                () -> images.buildArchive(Path.of("/nowhere"), Set.of("t"), Map.of(), line -> { })));
        assertSame(refusal, assertThrows(ImageBuildException.class,
                () -> images.build(null, Set.of("t"), Map.of(), line -> { })));
    }
}
