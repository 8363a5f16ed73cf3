package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.protocol.CmdOutputObservation;
import dev.dockyard.protocol.CmdRunAction;
import dev.dockyard.protocol.SecurityRisk;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The persistent shell on a real bash under a real pseudo-terminal. */
class BashSessionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path workspace;

    @TempDir
    Path scripts;

    private BashSession shell;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        shell = BashSession.start("/bin/bash", workspace, env, Duration.ofSeconds(2), scripts);
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
        assertTrue(obs.metadata().suffix().startsWith("\n[The command timed out after 1.0 seconds. You may wait longer"), obs.metadata().suffix());

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
    void shouldRunAHundredThousandByteOneLineCommandExactly() throws Exception {
        String text = "0123456789abcdefghijklmnopqrstuvwxyz-+=.,:ABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(2000)
                .substring(0, 100_000);
        CmdOutputObservation obs = run("printf %s '" + text + "' | sha256sum");
        assertEquals(sha256(text) + "  -", obs.content());
        assertEquals(0, obs.metadata().exitCode());
        assertEquals("ok", run("echo ok").content(), "the shell takes short commands again");
        try (Stream<Path> left = Files.list(scripts)) {
            assertEquals(0, left.count(), "the long command's file is removed once it is done");
        }
    }

    @Test
    void shouldInterruptALongCommandWithCtrlC() throws Exception {
        CmdOutputObservation obs = shell.execute(new CmdRunAction("echo started; sleep 30 # " + "s".repeat(5000),
                false, "", true, false, null, false, SecurityRisk.UNKNOWN, 1.0), Duration.ofSeconds(1));
        assertEquals("started", obs.content());
        assertEquals(-1, obs.metadata().exitCode());
        CmdOutputObservation interrupted = input("C-c");
        assertEquals(130, interrupted.metadata().exitCode());
        assertEquals("next", run("echo next").content());
    }

    @Test
    void shouldRunTheRestOfALineLongerThanTheTerminalLimit() throws Exception {
        assertEquals("4101", run("echo " + "x".repeat(4100) + " | wc -c").content());
    }

    @Test
    void shouldKeepDirectoryAndVariablesSetByALongCommand() throws Exception {
        run("cd /tmp && export DY_LONG=" + "v".repeat(6000));
        assertEquals("6000 /tmp", run("echo ${#DY_LONG} $PWD").content());
        assertEquals("/tmp", shell.workingDirectory().toString());
    }

    @Test
    void shouldRunNothingOfALongMultiLineCommandWithASyntaxError() throws Exception {
        CmdOutputObservation obs = run("echo first-line\necho " + "y".repeat(5000) + "\nif then");
        assertTrue(obs.content().contains("syntax error"), obs.content());
        assertTrue(!obs.content().contains("first-line"), obs.content());
        assertEquals(2, obs.metadata().exitCode());
    }

    @Test
    void shouldReportTheExitCodeOfALongCommand() throws Exception {
        assertEquals(7, run("(exit 7) # " + "z".repeat(5000)).metadata().exitCode());
    }

    @Test
    void shouldPassCharactersTheTerminalWouldInterpret() throws Exception {
        // a carriage return would become a newline and a C-u would erase the line, if typed
        assertEquals("5", run("printf %s 'a\rb\u0015c' | wc -c").content());
    }

    @Test
    void shouldDeliverAnInputLineLongerThanTheTerminalLimit() throws Exception {
        CmdOutputObservation waiting = run("read -r line; echo ${#line} ${line: -3}");
        assertTrue(waiting.metadata().suffix().contains("no new output"), waiting.metadata().suffix());
        CmdOutputObservation answered = input("w".repeat(9997) + "end");
        assertEquals("10000 end", answered.content());
        assertEquals(0, answered.metadata().exitCode());
    }

    @Test
    void shouldSendALongInputLineUnchangedToAProgramInRawMode() throws Exception {
        run("stty -icanon min 1; read -r line; stty icanon; echo ${#line}");
        // in raw mode an end-of-file character would be one more character of the line
        assertEquals("10000", input("r".repeat(10_000)).content());
    }

    @Test
    void shouldStartAgainAfterExit() throws Exception {
        CmdOutputObservation obs = run("exit");
        assertTrue(obs.metadata().suffix().contains("shell exited"), obs.metadata().suffix());
        assertTrue(!shell.isAlive());
    }

    @Test
    void shouldShowOutputAsOpenHandsTmuxPaneShowsIt() throws Exception {
        assertEquals("x", run("echo '   x'").content(), "OpenHands strips the output at both ends");
        assertEquals("100%", run("printf '50%%\\r100%%\\n'").content());
        assertEquals("red\nnext", run("printf '\\033[31mred\\033[0m   \\nnext\\n'").content());
        assertEquals("a       b", run("printf 'a\\tb\\n'").content());
    }

    @Test
    void shouldFindPythonAlongThePathAtEveryPromptAsWhichDoes() throws Exception {
        Path bin = Files.createDirectories(workspace.resolve("venv/bin"));
        Path python = Files.writeString(bin.resolve("python"), "#!/bin/sh\n");
        python.toFile().setExecutable(true);
        assertEquals(bin + "/python", run("export PATH=" + bin + ":$PATH").metadata().pyInterpreterPath());
        assertEquals("venv/bin/python", run("export PATH=venv/bin:/nowhere").metadata().pyInterpreterPath(),
                "a relative entry is written as it is and looked up from the working directory");
        assertEquals("", run("cd /").metadata().pyInterpreterPath(), "no python on the path is \"\", not null");
    }

    @Test
    void shouldKeepItsPromptWhenACommandChangesPs1() throws Exception {
        run("PS1=\"(venv) $PS1\"");
        assertEquals("after", run("echo after").content(), "a virtual environment's prompt prefix is not output");
        assertEquals(0, run("true").metadata().exitCode());
        assertEquals(3, run("(exit 3)").metadata().exitCode(), "the exit code survives PROMPT_COMMAND");
    }

    @Test
    void shouldSendOtherControlKeysAsTmuxTypesThem() throws Exception {
        CmdRunAction cat = new CmdRunAction("cat -v", false, "", true, false, null, false, SecurityRisk.UNKNOWN, 0.5);
        shell.execute(cat, Duration.ofMillis(500));
        CmdRunAction formFeed = new CmdRunAction("C-l", true, "", true, false, null, false, SecurityRisk.UNKNOWN, 0.5);
        shell.execute(formFeed, Duration.ofMillis(500));
        assertEquals("^Lx", input("x").content().replace("[Below is the output of the previous command.]\n", ""));
        CmdOutputObservation done = input("C-d");
        assertEquals("\n[The command completed with exit code 0. CTRL+D was sent.]", done.metadata().suffix());
    }

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
