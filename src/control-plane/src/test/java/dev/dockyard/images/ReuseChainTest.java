package dev.dockyard.images;

import dev.dockyard.backend.RuntimeImageBuilder;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reuse chain on a fake engine that keeps, per image, the layers it was built from: what a
 * build starts from and which tags it moves decide what ends up in whose image.
 */
class ReuseChainTest {

    private static final String BASE = "dockyard/sandbox-base:bookworm";
    private static final ExtraDependencies A = new ExtraDependencies(List.of(), "echo a > /opt/a-marker");
    private static final ExtraDependencies B = new ExtraDependencies(List.of(), "echo b > /opt/b-marker");
    private static final String BUNDLE = "0123456789abcdef0123456789abcdef";
    private static final String NEW_BUNDLE = "fedcba9876543210fedcba9876543210";

    private record Image(int id, List<String> layers, Map<String, String> labels) {
    }

    /** Image name → image, as the engine has them. */
    private final Map<String, Image> engine = new HashMap<>(Map.of(BASE, new Image(0, List.of("base"), Map.of())));
    private int nextId = 1;

    private static RuntimeImageTags tags(ExtraDependencies extra, String dependencyLock, String bundle) {
        return RuntimeImageTags.of(RuntimeImageTags.DEFAULT_REPOSITORY, "0.1.0", BASE, dependencyLock, "26.0.0.3",
                extra, bundle);
    }

    private Optional<RuntimeImageBuilder.ImageInfo> inspect(String name) {
        return Optional.ofNullable(engine.get(name)).map(i -> new RuntimeImageBuilder.ImageInfo("sha256:" + i.id(),
                Set.of(name), 0, i.labels()));
    }

    /** Plans a build and does what RuntimeImages does with the plan: layers on {@code from}, then tags. */
    private ReuseChain.Plan build(ExtraDependencies extra, String dependencyLock, String bundle, boolean force) {
        RuntimeImageTags tags = tags(extra, dependencyLock, bundle);
        ReuseChain.Plan plan = ReuseChain.plan(tags, BASE, extra, force, this::inspect);
        if (plan.path() != ImageBuild.Path.CACHED) {
            List<String> layers = new ArrayList<>(engine.get(plan.from()).layers());
            if (!plan.install().isEmpty()) {
                layers.add("extra:" + plan.install().script());
            }
            layers.add("bundle:" + bundle);
            Image image = new Image(nextId++, layers, Map.of(RuntimeImageTags.EXTRA_DEPS_LABEL, tags.extraDeps()));
            plan.applies().forEach(name -> engine.put(name, image));
        }
        return plan;
    }

    private ReuseChain.Plan build(ExtraDependencies extra) {
        return build(extra, "protocol-0.1.0", BUNDLE, false);
    }

    private List<String> layersOf(ExtraDependencies extra, String dependencyLock, String bundle) {
        RuntimeImageTags tags = tags(extra, dependencyLock, bundle);
        return engine.get(tags.image(tags.source())).layers();
    }

    @Test
    void shouldNeverStartFromAnImageWithOtherExtraDeps() {
        assertEquals(ImageBuild.Path.BASE, build(ExtraDependencies.NONE).path());
        assertEquals(ImageBuild.Path.VERSIONED, build(A).path());
        ReuseChain.Plan b = build(B);
        assertEquals(ImageBuild.Path.VERSIONED, b.path(), "B starts from the clean versioned image");
        assertEquals(List.of("base", "bundle:" + BUNDLE, "extra:" + B.script(), "bundle:" + BUNDLE),
                layersOf(B, "protocol-0.1.0", BUNDLE));
        // a new dependency lock misses every lock tag: the versioned image is all there is to start from
        ReuseChain.Plan newLock = build(B, "protocol-0.2.0", BUNDLE, false);
        assertEquals(ImageBuild.Path.VERSIONED, newLock.path());
        assertFalse(layersOf(B, "protocol-0.2.0", BUNDLE).contains("extra:" + A.script()));
        build(ExtraDependencies.NONE, "protocol-0.2.0", BUNDLE, false);
        assertEquals(List.of("base", "bundle:" + BUNDLE, "bundle:" + BUNDLE),
                layersOf(ExtraDependencies.NONE, "protocol-0.2.0", BUNDLE), "a plain build holds no one's script");
    }

    @Test
    void shouldStartFromTheBaseWhenOnlyImagesWithExtraDepsExist() {
        assertEquals(ImageBuild.Path.BASE, build(A).path());
        ReuseChain.Plan b = build(B);
        assertEquals(ImageBuild.Path.BASE, b.path());
        assertEquals(BASE, b.from());
        assertEquals(List.of("base", "extra:" + B.script(), "bundle:" + BUNDLE), layersOf(B, "protocol-0.1.0", BUNDLE));
        assertEquals(ImageBuild.Path.BASE, build(ExtraDependencies.NONE).path());
    }

    @Test
    void shouldNeverMoveTheVersionedTagWithABuildThatHadExtraDeps() {
        build(ExtraDependencies.NONE);
        RuntimeImageTags plain = tags(ExtraDependencies.NONE, "protocol-0.1.0", BUNDLE);
        Image clean = engine.get(plain.image(plain.versioned()));
        ReuseChain.Plan a = build(A);
        assertFalse(a.applies().contains(plain.image(plain.versioned())), a.applies().toString());
        assertEquals(clean, engine.get(plain.image(plain.versioned())));
        ReuseChain.Plan forced = build(new ExtraDependencies(List.of("jq"), ""), "protocol-0.1.0", BUNDLE, true);
        assertEquals(ImageBuild.Path.BASE, forced.path());
        assertEquals(clean, engine.get(plain.image(plain.versioned())), "apt packages are extra deps too");
        assertTrue(build(ExtraDependencies.NONE, "protocol-0.1.0", BUNDLE, true).applies()
                .contains(plain.image(plain.versioned())), "a plain build keeps the versioned tag current");
    }

    @Test
    void shouldKeepTheFastPathsForTheSameInputs() {
        build(A);
        ReuseChain.Plan again = build(A);
        assertEquals(ImageBuild.Path.CACHED, again.path());
        assertEquals(Set.of(), again.applies());
        ReuseChain.Plan newBundle = build(A, "protocol-0.1.0", NEW_BUNDLE, false);
        assertEquals(ImageBuild.Path.LOCK, newBundle.path());
        RuntimeImageTags a = tags(A, "protocol-0.1.0", NEW_BUNDLE);
        assertEquals(a.image(a.lock()), newBundle.from());
        assertEquals(ExtraDependencies.NONE, newBundle.install(), "the lock image has A's dependencies already");
        assertEquals(List.of("base", "extra:" + A.script(), "bundle:" + BUNDLE, "bundle:" + NEW_BUNDLE),
                layersOf(A, "protocol-0.1.0", NEW_BUNDLE));

        build(ExtraDependencies.NONE);
        assertEquals(ImageBuild.Path.CACHED, build(ExtraDependencies.NONE).path());
        ReuseChain.Plan plainNewBundle = build(ExtraDependencies.NONE, "protocol-0.1.0", NEW_BUNDLE, false);
        assertEquals(ImageBuild.Path.LOCK, plainNewBundle.path());
        assertFalse(layersOf(ExtraDependencies.NONE, "protocol-0.1.0", NEW_BUNDLE).contains("extra:" + A.script()));
    }

    @Test
    void shouldBuildAgainRatherThanTrustAnUnlabelledImage() {
        // tags an earlier Dockyard applied, one of them after running someone's script
        RuntimeImageTags plain = tags(ExtraDependencies.NONE, "protocol-0.1.0", BUNDLE);
        RuntimeImageTags b = tags(B, "protocol-0.1.0", BUNDLE);
        Image tainted = new Image(99, List.of("base", "extra:" + A.script(), "bundle:old"), Map.of());
        engine.put(plain.image(plain.versioned()), tainted);
        engine.put(b.image(b.source()), tainted);
        engine.put(b.image(b.lock()), tainted);
        ReuseChain.Plan plan = build(B);
        assertEquals(ImageBuild.Path.BASE, plan.path());
        assertNotEquals(tainted, engine.get(b.image(b.source())));
        assertEquals(ImageBuild.Path.BASE, build(ExtraDependencies.NONE).path());
        assertEquals(ImageBuild.Path.VERSIONED, build(A).path(), "the versioned tag is clean again");
    }

    @Test
    void shouldNotTakeAnImageLabelledWithOtherExtraDepsUnderItsOwnTag() {
        RuntimeImageTags b = tags(B, "protocol-0.1.0", BUNDLE);
        RuntimeImageTags a = tags(A, "protocol-0.1.0", BUNDLE);
        engine.put(b.image(b.source()), new Image(98, List.of("base", "extra:" + A.script()),
                Map.of(RuntimeImageTags.EXTRA_DEPS_LABEL, a.extraDeps())));
        assertFalse(ReuseChain.holds(this::inspect, b.image(b.source()), b.extraDeps()));
        assertTrue(ReuseChain.holds(this::inspect, b.image(b.source()), a.extraDeps()));
        assertFalse(ReuseChain.holds(this::inspect, "dockyard/runtime:absent", RuntimeImageTags.NO_EXTRA_DEPS));
        assertEquals(ImageBuild.Path.BASE, build(B).path());
    }
}
