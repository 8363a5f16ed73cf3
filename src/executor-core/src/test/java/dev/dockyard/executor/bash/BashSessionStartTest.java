package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.protocol.CmdRunAction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long a new shell has to show its first prompt. At the soak's load average of 123 (2026-12-02)
 * three shells were slower than the 30 s they had then, and their executors refused to run; the
 * limit is 90 s now. These shells are real bash behind a script that delays it, with limits scaled
 * down to seconds.
 */
class BashSessionStartTest {

    @TempDir
    Path workspace;

    @TempDir
    Path scripts;

    @TempDir
    Path bin;

    @Test
    void shouldWaitForAShellThatShowsItsPromptLateButWithinTheLimit() throws Exception {
        Path slow = shell("sleep 2; exec /bin/bash \"$@\"");
        long begun = System.nanoTime();
        BashSession session = start(slow, Duration.ofSeconds(8));
        try {
            assertTrue(elapsed(begun).toMillis() >= 2000, "waited for the prompt: " + elapsed(begun));
            assertEquals("late", session.execute(CmdRunAction.of("echo late"), Duration.ofSeconds(10)).content());
        } finally {
            session.close();
        }
    }

    @Test
    void shouldRefuseAShellWhosePromptDoesNotComeWithinTheLimit() throws Exception {
        Path slower = shell("sleep 6; exec /bin/bash \"$@\"");
        long begun = System.nanoTime();

        IOException refused = assertThrows(IOException.class, () -> start(slower, Duration.ofSeconds(1)));

        assertTrue(refused.getMessage().startsWith("bash did not start"), refused.getMessage());
        Duration took = elapsed(begun);
        assertTrue(took.toMillis() >= 1000 && took.toMillis() < 5000, "refused at its limit: " + took);
    }

    @Test
    void shouldFailAtOnceWhenTheShellExitsBeforeItsPrompt() throws Exception {
        Path broken = shell("echo 'no shell here'; exit 3");
        long begun = System.nanoTime();

        IOException refused = assertThrows(IOException.class, () -> start(broken, Duration.ofSeconds(60)));

        assertTrue(refused.getMessage().contains("no shell here"), "its output is said: " + refused.getMessage());
        assertTrue(elapsed(begun).toSeconds() < 20, "not the whole limit: " + elapsed(begun));
    }

    @Test
    void shouldGiveANewShellNinetySecondsByDefault() {
        assertEquals(Duration.ofSeconds(90), BashSession.START_LIMIT);
    }

    private BashSession start(Path shell, Duration limit) throws IOException {
        Map<String, String> env = new HashMap<>(System.getenv());
        return BashSession.start(shell.toString(), workspace, env, Duration.ofSeconds(2), scripts, false, limit);
    }

    /** An executable shell script standing in for bash: {@code body} runs with bash's arguments. */
    private Path shell(String body) throws IOException {
        Path script = Files.createTempFile(bin, "shell", ".sh",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        return script;
    }

    private static Duration elapsed(long begun) {
        return Duration.ofNanos(System.nanoTime() - begun);
    }
}
