package dev.dockyard.application.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.fakes.FakeImages;
import dev.dockyard.fakes.FakeNodes;
import dev.dockyard.fakes.TestConfig;
import dev.dockyard.images.RuntimeImageTags;
import dev.dockyard.workspace.Snapshot;
import dev.dockyard.workspace.WorkspaceRecords;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Who may use which image (issue 26: images crossed tenants). */
class ImageAccessTest {

    private static final String SANDBOX_ID = "sha256:c2" + "0".repeat(62);
    private static final String SNAPSHOT_ID = "sha256:5a" + "1".repeat(62);
    private static final String FOREIGN_ID = "sha256:f0" + "2".repeat(62);
    private static final String BUILD_ID = "sha256:b0" + "3".repeat(62);
    private static final String DANGLING_ID = "sha256:da" + "4".repeat(62);
    private static final String DERIVED_ID = "sha256:de" + "5".repeat(62);
    private static final String EXTRAS_ID = "sha256:e0" + "6".repeat(62);
    private static final String LEGACY_SNAPSHOT_ID = "sha256:1e" + "7".repeat(62);

    private final FakeImages engine = new FakeImages();
    private final List<String> allowed = new ArrayList<>();
    private final Map<String, Snapshot> snapshots = new HashMap<>();
    private final ImageAccess access = new ImageAccess();

    @BeforeEach
    void wire() {
        access.nodes = new FakeNodes("local") {
            @Override
            public RuntimeImageBuilder images(String node) {
                return engine;
            }
        };
        access.config = new TestConfig() {
            @Override
            public String imageRepository() {
                return "dockyard/runtime";
            }

            @Override
            public List<String> imagesAllowed() {
                return allowed;
            }
        };
        access.records = new WorkspaceRecords() {
            @Override
            public Optional<Snapshot> snapshot(String id) {
                return Optional.ofNullable(snapshots.get(id));
            }
        };
        engine.add(new RuntimeImageBuilder.ImageInfo(SANDBOX_ID, Set.of("dockyard/sandbox:latest"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true")));
        // a snapshot's image: committed from alice's sandbox, labels and all
        engine.add(new RuntimeImageBuilder.ImageInfo(SNAPSHOT_ID, Set.of("dockyard/snapshot:snap-a"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.SNAPSHOT_ID, "snap-a", Labels.OWNER, "alice",
                        Labels.RUNTIME_ID, "rt-a")));
        // one from before owners were labelled: the snapshot record says whose
        engine.add(new RuntimeImageBuilder.ImageInfo(LEGACY_SNAPSHOT_ID, Set.of("dockyard/snapshot:snap-old"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.SNAPSHOT_ID, "snap-old", Labels.RUNTIME_ID, "rt-o")));
        snapshots.put("snap-old", new Snapshot("snap-old", "alice", "old", "rt-o", "local",
                "dockyard/snapshot:snap-old", "dockyard-snapshot-snap-old", 1, 0, Instant.EPOCH));
        engine.add(new RuntimeImageBuilder.ImageInfo(FOREIGN_ID, Set.of("python:3.12"), 1, Map.of(),
                Set.of("python@sha256:" + "9".repeat(64))));
        // alice's build through /runtime-api/build, in Dockyard's repository
        engine.add(new RuntimeImageBuilder.ImageInfo(BUILD_ID, Set.of("dockyard/runtime:alices"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.BASE_IMAGE, "build-context", Labels.OWNER, "alice")));
        engine.add(new RuntimeImageBuilder.ImageInfo(DANGLING_ID, Set.of(), 1, Map.of()));
        // Dockyard's runtime images of python:3.12, without and with extra dependencies
        engine.add(new RuntimeImageBuilder.ImageInfo(DERIVED_ID, Set.of("dockyard/runtime:python_3.12-src"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.BASE_IMAGE, "python:3.12",
                        RuntimeImageTags.EXTRA_DEPS_LABEL, RuntimeImageTags.NO_EXTRA_DEPS)));
        engine.add(new RuntimeImageBuilder.ImageInfo(EXTRAS_ID, Set.of("dockyard/runtime:python_3.12-extras"), 1,
                Map.of(Labels.RUNTIME_IMAGE, "true", Labels.BASE_IMAGE, "python:3.12",
                        RuntimeImageTags.EXTRA_DEPS_LABEL, "0123456789abcdef")));
    }

    private boolean usable(String reference, String user) {
        return access.usable(null, reference, user, false).isPresent();
    }

    @Test
    void shouldNeverAnswerAnIdPrefix() {
        assertTrue(engine.inspect("c2").isPresent(), "the engine itself finds an image by a 2-hex prefix");
        assertFalse(usable("c2", "bob"));
        assertFalse(usable("5a", "alice"), "not even the owner's image: a prefix names nothing");
        assertFalse(access.usable(null, "c2", "admin", true).isPresent(), "nor for an admin");
        assertFalse(usable("da", "bob"), "dangling layers");
        assertFalse(usable(SANDBOX_ID.substring(0, 20), "bob"));
        assertTrue(usable(SANDBOX_ID, "bob"), "the whole id names the image");
    }

    @Test
    void shouldLetEveryoneUseDockyardsSandboxImage() {
        assertTrue(usable("dockyard/sandbox:latest", "bob"));
        assertTrue(usable("dockyard/sandbox", "bob"), "no tag: latest");
    }

    @Test
    void shouldKeepASnapshotImageToItsOwner() {
        assertTrue(usable("dockyard/snapshot:snap-a", "alice"));
        assertFalse(usable("dockyard/snapshot:snap-a", "bob"));
        assertFalse(usable(SNAPSHOT_ID, "bob"), "by its id neither");
        assertTrue(usable("dockyard/snapshot:snap-old", "alice"), "unlabelled: the snapshot's record says whose");
        assertFalse(usable("dockyard/snapshot:snap-old", "bob"));
        assertTrue(access.usable(null, "dockyard/snapshot:snap-a", "root", true).isPresent(), "admins use all");
    }

    @Test
    void shouldKeepASnapshotImageOwnedEvenWhenAllowListed() {
        allowed.add("*");
        assertFalse(usable("dockyard/snapshot:snap-a", "bob"));
        assertFalse(usable("dockyard/runtime:alices", "bob"));
        assertTrue(usable("python:3.12", "bob"));
    }

    @Test
    void shouldTreatACommittedSandboxWithoutRecordAsNobodys() {
        snapshots.clear();
        assertFalse(usable("dockyard/snapshot:snap-old", "alice"));
        assertTrue(access.usable(null, "dockyard/snapshot:snap-old", "root", true).isPresent());
    }

    @Test
    void shouldKeepAUsersBuildToTheBuilder() {
        assertTrue(usable("dockyard/runtime:alices", "alice"));
        assertFalse(usable("dockyard/runtime:alices", "bob"));
    }

    @Test
    void shouldRefuseAForeignImageUnlessAllowListed() {
        assertFalse(usable("python:3.12", "bob"));
        assertTrue(access.usable(null, "python:3.12", "root", true).isPresent(), "admins use all");
        allowed.add("python:*");
        assertTrue(usable("python:3.12", "bob"));
        assertTrue(usable("docker.io/library/python:3.12", "bob"), "the same name, written in full");
        assertTrue(usable(FOREIGN_ID, "bob"), "by its whole id: the image's tags decide");
    }

    @Test
    void shouldMatchPatternsOfRepositoriesAndRegistries() {
        allowed.add("python");
        assertTrue(usable("python:3.12", "bob"), "a pattern without a tag: every tag");
        assertTrue(usable("python@sha256:" + "9".repeat(64), "bob"), "and every digest");
        allowed.clear();
        allowed.add("ghcr.io/acme/*");
        assertFalse(usable("python:3.12", "bob"));
        allowed.add("pyth?n:3.12");
        assertFalse(usable("python:3.12", "bob"), "only * is a wildcard");
    }

    @Test
    void shouldLetWhoeverMayUseTheBaseUseItsCleanRuntimeImage() {
        assertFalse(usable("dockyard/runtime:python_3.12-src", "bob"), "python:3.12 is not allowed");
        allowed.add("python:*");
        assertTrue(usable("dockyard/runtime:python_3.12-src", "bob"));
        assertFalse(usable("dockyard/runtime:python_3.12-extras", "bob"), "extra dependencies: admins only");
        assertTrue(access.usable(null, "dockyard/runtime:python_3.12-extras", "root", true).isPresent());
    }

    @Test
    void shouldAnswerAnImageNotUsedLikeAnAbsentOne() {
        Refused forbidden = assertThrows(Refused.class,
                () -> access.require(null, "dockyard/snapshot:snap-a", "bob", false));
        Refused absent = assertThrows(Refused.class,
                () -> access.require(null, "dockyard/snapshot:nothing", "bob", false));
        assertEquals(Refused.Reason.NOT_FOUND, forbidden.reason());
        assertEquals(absent.getMessage().replace("dockyard/snapshot:nothing", "X"),
                forbidden.getMessage().replace("dockyard/snapshot:snap-a", "X"));
    }

    @Test
    void shouldListOnlyWhatTheCallerMayUse() {
        RuntimeImageBuilder.ImageInfo build = engine.inspect("dockyard/runtime:alices").orElseThrow();
        assertTrue(access.mayUse("local", build, "alice", false));
        assertFalse(access.mayUse("local", build, "bob", false));
        assertTrue(access.mayUse("local", build, "bob", true));
    }
}
