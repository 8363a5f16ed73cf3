package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Which of the engine's refusals of a start mean it keeps a task left over by a start that
 * containerd's going away cut off (the container is replaced, see {@link ContainerReplacement})
 * and which are other failures. The first is the soak's of 2026-12-01 02:45, the second what the
 * same state answers when the task's directory is all that is left (moby/moby#50040).
 */
class StaleTaskAnswersTest {

    @Test
    void shouldReadTheEnginesWordsForATaskLeftOver() {
        assertTrue(ContainerReplacement.staleTask("Status 500: {\"message\":\"task "
                + "166834d70fa70fc3f195f2f9fe8df1c8bdb7e63e646f9b643547432376b87baa: already exists\"}"));
        assertTrue(ContainerReplacement.staleTask("Status 500: {\"message\":\"failed to start shim: mkdir "
                + "/var/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby/"
                + "1e1e0a5c5121e9cba6544ce456ea6d9f2397c7eb3749bd1291fa071a649960e1: file exists: unknown\"}"));
    }

    /** The names a replacement gives the containers it sets aside, which the backend lists as nobody's. */
    @Test
    void shouldKnowTheNamesOfContainersSetAside() {
        assertTrue(ContainerReplacement.aside("dockyard-rt-1a2b-replaced-166834d70fa7"));
        assertTrue(ContainerReplacement.aside("dockyard-rt-1a2b-replacing-166834d70fa7"));
        assertFalse(ContainerReplacement.aside("dockyard-rt-1a2b"));
        assertFalse(ContainerReplacement.aside("dockyard-rt-replaced"));
    }

    /** The handed-in files (the session key) blanked before a writable root is committed: names and modes kept. */
    @Test
    void shouldBlankTheFilesOfAnArchiveAndKeepTheirNamesAndModes() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            TarArchiveEntry directory = new TarArchiveEntry("run/");
            tar.putArchiveEntry(directory);
            tar.closeArchiveEntry();
            byte[] key = "a session key".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry file = new TarArchiveEntry("run/session-key");
            file.setSize(key.length);
            file.setMode(0100400);
            file.setUserId(1000);
            tar.putArchiveEntry(file);
            tar.write(key);
            tar.closeArchiveEntry();
            byte[] plugins = "jupyter".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry second = new TarArchiveEntry("run/plugins");
            second.setSize(plugins.length);
            tar.putArchiveEntry(second);
            tar.write(plugins);
            tar.closeArchiveEntry();
        }

        byte[] blanked = ContainerReplacement.blanked(out.toByteArray());

        try (TarArchiveInputStream tar = new TarArchiveInputStream(new ByteArrayInputStream(blanked))) {
            assertTrue(tar.getNextEntry().isDirectory());
            TarArchiveEntry key = tar.getNextEntry();
            assertEquals("run/session-key", key.getName());
            assertEquals(0100400, key.getMode());
            assertEquals(1000, key.getLongUserId());
            assertEquals(0, tar.readAllBytes().length);
            TarArchiveEntry plugins = tar.getNextEntry();
            assertEquals("run/plugins", plugins.getName(), "the entry after a blanked one is read whole");
            assertEquals(0, tar.readAllBytes().length);
            assertNull(tar.getNextEntry());
        }
        assertFalse(new String(blanked, StandardCharsets.ISO_8859_1).contains("a session key"));
    }

    @Test
    void shouldKeepAnyOtherRefusalAFailure() {
        assertFalse(ContainerReplacement.staleTask("Status 500: {\"message\":\"driver failed programming external "
                + "connectivity on endpoint dockyard-rt-1: listen tcp4 127.7.0.3:32768: bind: address already in use\"}"));
        assertFalse(ContainerReplacement.staleTask("Status 409: {\"message\":\"Conflict. The container name "
                + "\\\"/dockyard-rt-1\\\" is already in use by container \\\"3f2a\\\"\"}"));
        assertFalse(ContainerReplacement.staleTask("Status 500: {\"message\":\"transport is closing: unavailable\"}"));
    }
}
