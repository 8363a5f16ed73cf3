package dev.dockyard.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeImageTagsTest {

    private static final String BUNDLE = "0123456789abcdef0123456789abcdef";

    private static RuntimeImageTags tags(String base, String lock, String liberty, ExtraDependencies extra, String bundle) {
        return RuntimeImageTags.of(RuntimeImageTags.DEFAULT_REPOSITORY, "0.1.0", base, lock, liberty, extra, bundle);
    }

    private static RuntimeImageTags standard() {
        return tags("dockyard/sandbox-base:bookworm", "protocol-0.1.0", "26.0.0.3", ExtraDependencies.NONE, BUNDLE);
    }

    @Test
    void shouldSanitiseTheBaseNameInTheVersionedTag() {
        assertEquals("dy_v0.1.0_dockyard_s_sandbox-base_t_bookworm", standard().versioned());
        assertEquals("dy_v0.1.0_registry.local_t_5000_s_team_s_py_t_3.12", tags("registry.local:5000/team/py:3.12",
                "l", "26.0.0.3", ExtraDependencies.NONE, BUNDLE).versioned());
        assertEquals("dy_v0.1.0_ubuntu_a_sha256_t_" + "a".repeat(64), tags("ubuntu@sha256:" + "a".repeat(64), "l",
                "26.0.0.3", ExtraDependencies.NONE, BUNDLE).versioned());
    }

    @Test
    void shouldKeepTheLastNinetySixCharactersOfALongBaseName() {
        String base = "registry.example/" + "deep/".repeat(30) + "image:tag";
        String versioned = tags(base, "l", "26.0.0.3", ExtraDependencies.NONE, BUNDLE).versioned();
        assertEquals("dy_v0.1.0_".length() + 96, versioned.length());
        assertTrue(versioned.endsWith("_s_image_t_tag"), versioned);
    }

    @Test
    void shouldBuildTheSourceTagOnTheLockTag() {
        RuntimeImageTags t = standard();
        assertTrue(t.lock().matches("dy_v0\\.1\\.0_[0-9a-f]{16}"), t.lock());
        assertEquals(t.lock() + "_" + BUNDLE.substring(0, 16), t.source());
        assertEquals("dockyard/runtime:" + t.source(), t.image(t.source()));
    }

    @Test
    void shouldBeStable() {
        assertEquals(standard(), standard());
        assertEquals(tags("b", "l", "v", new ExtraDependencies(List.of("jq", "curl"), "echo hi"), BUNDLE),
                tags("b", "l", "v", new ExtraDependencies(List.of("curl", "jq"), "  echo hi\n"), BUNDLE),
                "package order and surrounding blanks do not matter");
    }

    @Test
    void shouldChangeTheLockWithEachOfItsInputsOnly() {
        RuntimeImageTags base = standard();
        List<RuntimeImageTags> changed = List.of(
                tags("dockyard/sandbox-base:trixie", "protocol-0.1.0", "26.0.0.3", ExtraDependencies.NONE, BUNDLE),
                tags("dockyard/sandbox-base:bookworm", "protocol-0.2.0", "26.0.0.3", ExtraDependencies.NONE, BUNDLE),
                tags("dockyard/sandbox-base:bookworm", "protocol-0.1.0", "26.0.0.4", ExtraDependencies.NONE, BUNDLE),
                tags("dockyard/sandbox-base:bookworm", "protocol-0.1.0", "26.0.0.3",
                        new ExtraDependencies(List.of("jq"), ""), BUNDLE),
                tags("dockyard/sandbox-base:bookworm", "protocol-0.1.0", "26.0.0.3",
                        new ExtraDependencies(List.of(), "pip install x"), BUNDLE));
        for (RuntimeImageTags other : changed) {
            assertNotEquals(base.lock(), other.lock(), other.toString());
            assertNotEquals(base.source(), other.source());
        }
        RuntimeImageTags newBundle = tags("dockyard/sandbox-base:bookworm", "protocol-0.1.0", "26.0.0.3",
                ExtraDependencies.NONE, "fedcba9876543210fedcba9876543210");
        assertEquals(base.lock(), newBundle.lock(), "a new executor bundle keeps the lock");
        assertEquals(base.versioned(), newBundle.versioned());
        assertNotEquals(base.source(), newBundle.source());
    }

    @Test
    void shouldNotConfuseInputBoundaries() {
        assertNotEquals(RuntimeImageTags.hash("ab", "c"), RuntimeImageTags.hash("a", "bc"));
    }

    @Test
    void shouldHashBundleContentsNotTimestamps(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("wlp/bin"));
        Files.writeString(dir.resolve("wlp/bin/start"), "#!/bin/sh\n");
        Files.writeString(dir.resolve("executor.war"), "war-bytes");
        String first = RuntimeImageTags.bundleHash(dir);
        Files.setLastModifiedTime(dir.resolve("executor.war"), FileTime.fromMillis(0));
        assertEquals(first, RuntimeImageTags.bundleHash(dir));
        Files.writeString(dir.resolve("executor.war"), "war-bytes!");
        String changed = RuntimeImageTags.bundleHash(dir);
        assertNotEquals(first, changed);
        Files.writeString(dir.resolve("executor.war"), "war-bytes");
        Files.move(dir.resolve("wlp/bin/start"), dir.resolve("wlp/bin/begin"));
        assertNotEquals(first, RuntimeImageTags.bundleHash(dir), "a renamed file is a different bundle");
    }

    @Test
    void shouldApplyTheVersionedTagOnlyToACleanImage() {
        RuntimeImageTags plain = standard();
        assertTrue(plain.clean());
        assertEquals(RuntimeImageTags.NO_EXTRA_DEPS, plain.extraDeps());
        assertEquals(Set.of(plain.image(plain.source()), plain.image(plain.lock()),
                plain.image(plain.versioned())), plain.applied());
        for (ExtraDependencies extra : List.of(new ExtraDependencies(List.of("jq"), ""),
                new ExtraDependencies(List.of(), "echo a"))) {
            RuntimeImageTags withExtra = tags("dockyard/sandbox-base:bookworm", "protocol-0.1.0", "26.0.0.3", extra,
                    BUNDLE);
            assertFalse(withExtra.clean());
            assertTrue(withExtra.extraDeps().matches("[0-9a-f]{16}"), withExtra.extraDeps());
            assertEquals(plain.versioned(), withExtra.versioned(), "the clean image it may start from");
            assertEquals(Set.of(withExtra.image(withExtra.source()), withExtra.image(withExtra.lock())),
                    withExtra.applied());
        }
        assertNotEquals(tags("b", "l", "v", new ExtraDependencies(List.of(), "echo a"), BUNDLE).extraDeps(),
                tags("b", "l", "v", new ExtraDependencies(List.of(), "echo b"), BUNDLE).extraDeps());
        assertEquals(tags("b", "l", "v", new ExtraDependencies(List.of(), "echo a"), BUNDLE).extraDeps(),
                tags("other", "l2", "v2", new ExtraDependencies(List.of(), "echo a"), "f".repeat(32)).extraDeps(),
                "the label names the extra dependencies only");
    }
}
