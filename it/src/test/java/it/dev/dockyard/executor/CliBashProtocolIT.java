package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.HostTmp;
import it.dev.dockyard.support.Sandbox;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@link BashProtocolIT} on a runtime of the cli node: the same persistent shell semantics, the
 * same assertions, on this host. The overrides differ by what the backend is, not by what it
 * answers: the shell's user is the control plane's own (the it build runs it as the user running
 * the tests); the executor's heap is the control plane's; the process table is the host's (a
 * {@code ps -e} of it is longer than an observation keeps); there is no PID 1 of the runtime's own.
 */
@SandboxTest.OnNode(value = "cli1", onThisHost = true)
@ResourceLock(HostTmp.LOCK)
class CliBashProtocolIT extends BashProtocolIT {

    @AfterAll
    static void clearHostTmp() {
        HostTmp.clear();
    }

    @Test
    @Override
    void shouldReportUserHostAndBackgroundPid() {
        JsonObject obs = sandbox.run("sleep 30 &");
        JsonObject meta = Sandbox.metadata(obs);
        assertEquals(System.getProperty("user.name"), meta.getString("username"), "no sandbox user: the control plane's");
        assertFalse(meta.getString("hostname").isBlank());
        int pid = meta.getInt("pid");
        assertTrue(pid > 1, "pid of the background job: " + pid);
        assertEquals("sleep", sandbox.run("ps -o comm= -p " + pid).getString("content"));
        sandbox.run("kill " + pid + "; wait " + pid + " 2>/dev/null; true");
    }

    @Test
    @Override
    void shouldSurviveTwoHundredMegabytesOfOutputWithBoundedHeap() {
        // the heap is the control plane's own, not a capped executor's: the buffer must stay bounded in it
        JsonObject obs = sandbox.run("yes | head -c 200000000", 120, true);
        assertEquals(0, Sandbox.exitCode(obs));
        assertTrue(obs.getString("content").length() <= 30_000 + 60);
        assertTrue(obs.getString("content").contains("[... Observation truncated due to length ...]"));
        assertEquals("still fine", sandbox.run("echo still fine").getString("content"));
    }

    @Test
    @Override
    void shouldReturnAtHardTimeoutAndKeepTheProcessRunning() {
        JsonObject obs = sandbox.run("echo started; sleep 600", 2, true);
        assertEquals("started", obs.getString("content"));
        assertEquals(-1, Sandbox.exitCode(obs));
        assertTrue(Sandbox.suffix(obs).startsWith("\n[The command timed out after 2.0 seconds."), Sandbox.suffix(obs));
        // still running; the host's whole process table would be truncated: only its own line is asked for
        JsonObject ps = sandbox.execute(Sandbox.action("run", Sandbox.args().add("command",
                "ps -eo args | grep -c '^sleep 600$'").add("is_static", true)));
        assertTrue(Integer.parseInt(ps.getString("content").strip()) >= 1, ps.getString("content"));
    }

    @Test
    @Override
    void shouldRunAHundredThousandByteOneLineCommandExactly() throws Exception {
        String text = "0123456789abcdefghijklmnopqrstuvwxyz-+=.,:ABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(2000)
                .substring(0, 100_000);
        String command = "printf %s '" + text + "' | sha256sum";
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8))) + "  -";
        for (int i = 0; i < 3; i++) {
            JsonObject obs = sandbox.run(command);
            assertEquals(expected, obs.getString("content"));
            assertEquals(0, Sandbox.exitCode(obs));
            assertEquals(command, obs.getJsonObject("extras").getString("command"), "named as sent");
        }
        // a cli runtime's long commands go to its own run/ directory, beside its workspace
        assertEquals("0", sandbox.run(w("find /workspace/../run -maxdepth 1 -name 'command-*' | wc -l"))
                .getString("content").strip(), "the command's file is gone once it ran");
    }

    @Test
    @Disabled("through the control plane's proxy (NodeSandbox) a wrong or missing key is refused by the proxy, 401, "
            + "before any executor sees it; the cli executor's own 403 is CliBackendTest's")
    @Override
    void shouldRefuseWrongOrMissingSessionKey() {
    }

    @Test
    @Disabled("a cli runtime has no PID 1 of its own (tini in a sandbox): an orphan goes to the host's init, and "
            + "ps -e counts every zombie of the host, which the runtime neither owns nor can reap")
    @Override
    void shouldReapOrphanedZombies() {
    }
}
