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

/**
 * Control keys delivered as signals by the executor, as on gVisor's terminal, here on a real bash
 * under a kernel's terminal with the executor made to send them itself: the observations must be
 * the ones the terminal's own signals give.
 */
class BashSessionExecutorSignalsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path workspace;

    @TempDir
    Path scripts;

    private BashSession shell;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        shell = BashSession.start("/bin/bash", workspace, env, Duration.ofSeconds(2), scripts, true);
    }

    @AfterEach
    void stop() {
        shell.close();
    }

    private CmdOutputObservation run(String command) throws Exception {
        return shell.execute(CmdRunAction.of(command), TIMEOUT);
    }

    private CmdOutputObservation runFor(String command, double seconds) throws Exception {
        return shell.execute(new CmdRunAction(command, false, "", true, false, null, false, SecurityRisk.UNKNOWN,
                seconds), Duration.ofMillis((long) (seconds * 1000)));
    }

    private CmdOutputObservation input(String text) throws Exception {
        return shell.execute(new CmdRunAction(text, true, "", false, false, null, false, SecurityRisk.UNKNOWN, null),
                TIMEOUT);
    }

    @Test
    void shouldInterruptTheForegroundJobWithCtrlC() throws Exception {
        assertEquals(-1, runFor("sleep 100", 1).metadata().exitCode());
        CmdOutputObservation obs = input("C-c");
        assertEquals(130, obs.metadata().exitCode());
        assertEquals("\n[The command completed with exit code 130. CTRL+C was sent.]", obs.metadata().suffix());
        assertEquals("next", run("echo next").content());
    }

    @Test
    void shouldSuspendTheForegroundJobWithCtrlZ() throws Exception {
        runFor("sleep 100", 1);
        CmdOutputObservation obs = input("C-z");
        assertEquals(148, obs.metadata().exitCode());
        assertTrue(obs.content().contains("Stopped"), obs.content());
        assertTrue(run("jobs").content().contains("sleep 100"));
        run("kill -9 %1");
    }

    @Test
    void shouldInterruptAStoppedJobBroughtBackWithFg() throws Exception {
        runFor("sleep 100", 1);
        assertEquals(148, input("C-z").metadata().exitCode());
        CmdOutputObservation resumed = runFor("fg", 1);
        assertEquals(-1, resumed.metadata().exitCode(), "sleep runs in the foreground again");
        assertEquals(130, input("C-c").metadata().exitCode());
        assertEquals("", run("jobs").content());
    }

    @Test
    void shouldQuitTheForegroundJobWithCtrlBackslash() throws Exception {
        runFor("sleep 100", 1);
        CmdOutputObservation obs = input("C-\\");
        assertEquals(131, obs.metadata().exitCode());
        assertTrue(obs.metadata().suffix().endsWith("CTRL+\\ was sent.]"), obs.metadata().suffix());
    }

    @Test
    void shouldLeaveAnEarlierBackgroundJobRunning() throws Exception {
        run("sleep 300 &");
        runFor("sleep 100", 1);
        assertEquals(130, input("C-c").metadata().exitCode());
        assertTrue(run("jobs").content().contains("Running"), "the background job was not interrupted");
        run("kill %1");
    }

    @Test
    void shouldInterruptABuiltinTheShellRunsItself() throws Exception {
        run("sleep 300 &");
        CmdOutputObservation waiting = run("read -r line");
        assertTrue(waiting.metadata().suffix().contains("no new output"), waiting.metadata().suffix());
        assertEquals(130, input("C-c").metadata().exitCode());
        assertTrue(run("jobs").content().contains("Running"), "only the shell was interrupted");
        run("kill %1");
    }

    @Test
    void shouldEndALoopWithCtrlC() throws Exception {
        runFor("while true; do sleep 1; done", 1.5);
        assertEquals(130, input("C-c").metadata().exitCode());
        assertEquals("after", run("echo after").content());
    }

    @Test
    void shouldGiveTheKeyItselfToAProgramReadingRawKeys() throws Exception {
        runFor("stty -isig -icanon min 1; head -c1 | od -An -tu1; stty isig icanon", 1);
        CmdOutputObservation obs = input("C-c");
        assertEquals("3", obs.content().strip());
        assertEquals(0, obs.metadata().exitCode());
    }
}
