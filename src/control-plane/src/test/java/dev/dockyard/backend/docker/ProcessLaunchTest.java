package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;

class ProcessLaunchTest {

    @Test
    void shouldExportEveryValueExactlyAsGivenWhenAShellSourcesTheFile() throws Exception {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("PLAIN", "value");
        environment.put("QUOTED", "it's a \"test\" $HOME `id` \\n");
        environment.put("MULTILINE", "line 1\nline 2");
        String script = ProcessLaunch.environmentScript(environment)
                + "printf '%s|%s|%s' \"$PLAIN\" \"$QUOTED\" \"$MULTILINE\"";
        Process sh = new ProcessBuilder("/bin/sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        sh.waitFor(10, TimeUnit.SECONDS);
        assertEquals("value|it's a \"test\" $HOME `id` \\n|line 1\nline 2", out);
    }

    @Test
    void shouldRefuseANameAShellWouldMisread() {
        assertThrows(IllegalArgumentException.class, () -> ProcessLaunch.environmentScript(Map.of("A;rm", "x")));
    }

    @Test
    void shouldHandTheFileToTheSandboxUserOnly() throws Exception {
        byte[] tar = ProcessLaunch.environmentArchive(Map.of("K", "v"), "10001:10002");
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar))) {
            TarArchiveEntry directory = in.getNextTarEntry();
            assertEquals(".dockyard/", directory.getName());
            assertEquals(040700, directory.getMode());
            TarArchiveEntry file = in.getNextTarEntry();
            assertEquals(".dockyard/environment", file.getName());
            assertEquals(0100400, file.getMode());
            assertEquals(10001L, file.getLongUserId());
            assertEquals(10002L, file.getLongGroupId());
        }
    }
}
