package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.protocol.CmdOutputObservation;
import dev.dockyard.protocol.CmdRunAction;
import dev.dockyard.protocol.SecurityRisk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The persistent shell on a real bash under a real pseudo-terminal. */
class BashSessionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path workspace;

    private BashSession shell;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        shell = BashSession.start("/bin/bash", workspace, env, Duration.ofSeconds(2));
    }

    @AfterEach
    void stop() {
        shell.close();
    }

    private CmdOutputObservation run(String command) throws Exception {
        return shell.execute(CmdRunAction.of(command), TIMEOUT);
    }

    private CmdOutputObservation input(String text) throws Exception {
        return shell.execute(new CmdRunAction(text, true, "", false, false, null, false, SecurityRisk.UNKNOWN, null),
                TIMEOUT);
    }

    @Test
    void shouldReturnOutputAndExitCode() throws Exception {
        CmdOutputObservation obs = run("echo hello");
        assertEquals("hello", obs.content());
        assertEquals(0, obs.metadata().exitCode());
        assertEquals(workspace.toString(), obs.metadata().workingDir());
        assertEquals("\n[The command completed with exit code 0.]", obs.metadata().suffix());
        assertTrue(obs.success());
    }

    @Test
    void shouldKeepWorkingDirectoryAndVariablesBetweenCommands() throws Exception {
        run("cd /tmp");
        assertEquals("/tmp", run("pwd").content());
        assertEquals("/tmp", shell.workingDirectory().toString());
        run("export DY_TEST=42; f() { echo fn-$1; }");
        assertEquals("42", run("echo $DY_TEST").content());
        assertEquals("fn-x", run("f x").content());
    }

    @Test
    void shouldReportNonZeroExitCode() throws Exception {
        CmdOutputObservation obs = run("ls /definitely-not-here");
        assertEquals(2, obs.metadata().exitCode());
        assertTrue(obs.content().contains("No such file or directory"), obs.content());
    }

    @Test
    void shouldReturnAtHardTimeoutAndRefuseNewCommandWhileRunning() throws Exception {
        CmdOutputObservation obs = shell.execute(
                new CmdRunAction("echo started; sleep 30", false, "", true, false, null, false, SecurityRisk.UNKNOWN, 1.0),
                Duration.ofSeconds(1));
        assertEquals("started", obs.content());
        assertEquals(-1, obs.metadata().exitCode());
        assertTrue(obs.metadata().suffix().contains("timed out after 1 seconds"), obs.metadata().suffix());

        CmdOutputObservation refused = run("echo next");
        assertTrue(refused.metadata().suffix().contains("is NOT executed"), refused.metadata().suffix());

        CmdOutputObservation interrupted = input("C-c");
        assertEquals(130, interrupted.metadata().exitCode());
        assertTrue(interrupted.metadata().suffix().contains("CTRL+C was sent"));
        assertEquals("next", run("echo next").content());
    }

    @Test
    void shouldReturnPartialOutputAfterSoftTimeout() throws Exception {
        CmdOutputObservation obs = run("read -p 'name? ' name; echo hi $name");
        assertTrue(obs.metadata().suffix().contains("no new output after 2 seconds"), obs.metadata().suffix());
        assertEquals("name?", obs.content());
        CmdOutputObservation answered = input("dockyard");
        assertEquals("hi dockyard", answered.content());
        assertEquals(0, answered.metadata().exitCode());
    }

    @Test
    void shouldNotHangOnBackgroundProcess() throws Exception {
        CmdOutputObservation obs = run("sleep 60 &");
        assertEquals(0, obs.metadata().exitCode());
        assertTrue(obs.metadata().pid() > 0);
        assertEquals("ok", run("echo ok").content());
    }

    @Test
    void shouldTruncateMiddleOfHugeOutputWithBoundedMemory() throws Exception {
        CmdOutputObservation obs = shell.execute(
                new CmdRunAction("yes | head -c 50000000", false, "", true, false, null, false, SecurityRisk.UNKNOWN, 60.0),
                Duration.ofSeconds(60));
        assertTrue(obs.content().contains("[... Observation truncated due to length ...]"));
        assertTrue(obs.content().length() < 31_000);
        assertEquals(0, obs.metadata().exitCode());
        assertEquals("ok", run("echo ok").content());
    }

    @Test
    void shouldStartAgainAfterExit() throws Exception {
        CmdOutputObservation obs = run("exit");
        assertTrue(obs.metadata().suffix().contains("shell exited"), obs.metadata().suffix());
        assertTrue(!shell.isAlive());
    }
}
