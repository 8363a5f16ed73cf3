package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * {@link BashProtocolIT} on a runtime of the cli node: the same persistent shell semantics, the
 * same assertions, on this host. Two rows differ by what the backend is, not by what it answers:
 * the shell's user is the control plane's own (the it build runs it as the user running the
 * tests), and there is no PID 1 of the runtime's own to reap orphans (see the override).
 */
class CliBashProtocolIT extends BashProtocolIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = CliNodeSuites.start();
    }

    @AfterAll
    static void cleanHost() {
        CliNodeSuites.cleanHostTmp();
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
        sandbox.run("kill " + pid);
    }

    @Test
    @Disabled("a cli runtime has no PID 1 of its own (tini in a sandbox): an orphan goes to the host's init, and "
            + "ps -e counts every zombie of the host, which the runtime neither owns nor can reap")
    @Override
    void shouldReapOrphanedZombies() {
    }
}
