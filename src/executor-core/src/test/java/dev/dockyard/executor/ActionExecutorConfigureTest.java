package dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.executor.config.ExecutorSettings;
import dev.dockyard.protocol.CmdOutputObservation;
import dev.dockyard.protocol.CmdRunAction;
import dev.dockyard.protocol.SecurityRisk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /configure}'s file: replaced whole each time, readable by its owner only, no sibling left
 * behind, not kept from being written by one a killed executor left half-written nor written through a
 * link put in its place (the git token's as the configuration's). The shell
 * sees the new values on its next command.
 */
class ActionExecutorConfigureTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private Path run;
    private ActionExecutor executor;

    @BeforeEach
    void start() throws IOException {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        run = Files.createDirectories(dir.resolve("run"));
        ExecutorSettings settings = new ExecutorSettings(KEY, workspace, Duration.ofSeconds(30), Duration.ofSeconds(10),
                "/bin/bash", false, List.of());
        // git's global configuration (configureGit) goes to this test's own home
        executor = new ActionExecutor(settings, Map.of("PATH", "/usr/bin:/bin",
                "HOME", Files.createDirectories(dir.resolve("home")).toString()), run, null);
    }

    @AfterEach
    void stop() {
        executor.close();
    }

    private String echo(String what) {
        CmdOutputObservation out = (CmdOutputObservation) executor.execute(new CmdRunAction("echo " + what, false, "",
                true, false, null, false, SecurityRisk.LOW, null));
        return out.content().strip();
    }

    @Test
    void shouldReplaceTheFileWholeForItsOwnerOnly() throws IOException {
        executor.configure(Map.of("GREETING", "first"), null);
        executor.configure(Map.of("GREETING", "it's second"), null);

        Path file = run.resolve(ActionExecutor.CONFIGURED_ENV.getFileName());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String content = Files.readString(file);
        assertTrue(content.contains("export GREETING='it'\\''s second'"), content);
        assertFalse(content.contains("first"), content);
        try (var left = Files.list(run)) {
            assertEquals(List.of(file.getFileName().toString()),
                    left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "nothing but the file itself is left in its directory");
        }
        assertEquals("it's second", echo("\"$GREETING\""));
    }

    @Test
    void shouldWriteOverASiblingAKilledExecutorLeft() throws IOException {
        Path file = run.resolve(ActionExecutor.CONFIGURED_ENV.getFileName());
        Path stale = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(stale, "export GREETING=stale\n");

        executor.configure(Map.of("GREETING", "fresh"), null);

        assertFalse(Files.exists(stale));
        assertEquals("fresh", echo("$GREETING"));
    }

    @Test
    void shouldRemoveALinkPutInTheSiblingsPlaceNotWriteThroughIt() throws IOException {
        Path elsewhere = Files.writeString(dir.resolve("elsewhere.txt"), "untouched");
        Path token = run.resolve(ActionExecutor.GIT_TOKEN.getFileName());
        Files.createSymbolicLink(token.resolveSibling("." + token.getFileName() + ".tmp"), elsewhere);

        executor.configureGit("secret-token", "https://git.example.test");

        assertEquals("untouched", Files.readString(elsewhere));
        assertEquals("secret-token", Files.readString(token));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(token)));
    }
}
