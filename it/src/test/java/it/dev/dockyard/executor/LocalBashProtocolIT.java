package it.dev.dockyard.executor;

import static it.dev.dockyard.support.Sandbox.metadata;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.LocalNode;
import it.dev.dockyard.support.NodeSandbox;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * {@link BashProtocolIT} on a runtime of the local backend (node {@code local1} of the it build):
 * the executor as a host process, reached through the control plane; the same assertions, but:
 * <ul>
 *   <li>the shell's user is the node's sandbox user ({@code dockyard-sandbox}), not the image's
 *       {@code dockyard};</li>
 *   <li>two tests speak to the executor itself, not through the control plane's proxy that
 *       {@link NodeSandbox} goes through (a raw socket to the executor's root path; the executor's
 *       own 403 for a wrong key, where the proxy answers 401 first): they hold for every runtime
 *       reached that way, whatever its backend, and are left to the container suite.</li>
 * </ul>
 */
@SandboxTest.OnNode(LocalNode.NAME)
class LocalBashProtocolIT extends BashProtocolIT {

    private static final String THROUGH_PROXY = "NodeSandbox reaches the executor through the control plane's proxy, "
            + "under the runtime's path: this test talks to the executor directly";

    @Test
    @Override
    void shouldReportUserHostAndBackgroundPid() {
        JsonObject obs = sandbox.run("sleep 30 &");
        JsonObject meta = metadata(obs);
        assertEquals(LocalNode.USER, meta.getString("username"));
        assertFalse(meta.getString("hostname").isBlank());
        int pid = meta.getInt("pid");
        assertTrue(pid > 1, "pid of the background job: " + pid);
        assertEquals("sleep", sandbox.run("ps -o comm= -p " + pid).getString("content"));
        sandbox.run("kill " + pid + "; wait " + pid + " 2>/dev/null; true");
    }

    @Test
    @Disabled(THROUGH_PROXY)
    @Override
    void shouldRefuseWrongOrMissingSessionKey() {
    }

    @Test
    @Disabled(THROUGH_PROXY)
    @Override
    void shouldAnswerShortCommandsAsFastAsBefore() {
    }

    @Test
    @Disabled(THROUGH_PROXY)
    @Override
    void shouldRunAHundredThousandByteOneLineCommandExactly() {
    }
}
