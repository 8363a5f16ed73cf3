package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import it.dev.dockyard.support.HostTmp;
import it.dev.dockyard.support.Sandbox;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@link FileProtocolIT} (file actions: read, write, edit) on a runtime of the cli node, with the
 * same assertions; a file written is its user's, and on a cli node that user is the control
 * plane's own (the it build runs it as the user running the tests), not the sandbox's.
 */
@SandboxTest.OnNode(value = "cli1", onThisHost = true)
@ResourceLock(HostTmp.LOCK)
class CliFileProtocolIT extends FileProtocolIT {

    @AfterAll
    static void clearHostTmp() {
        HostTmp.clear();
    }

    @Test
    @Override
    void shouldWriteCreatingParentsAndReplacingLineRanges() {
        JsonObject obs = sandbox.execute(Sandbox.action("write", Sandbox.args()
                .add("path", w("/workspace/new/dir/file.txt")).add("content", "a\nb")));
        assertEquals("write", obs.getString("observation"));
        assertEquals(w("I wrote to the file /workspace/new/dir/file.txt."), obs.getString("message"));
        assertEquals("a\nb", sandbox.run(w("cat /workspace/new/dir/file.txt")).getString("content"));
        sandbox.execute(Sandbox.action("write", Sandbox.args().add("path", w("/workspace/new/dir/file.txt"))
                .add("content", "X").add("start", 1).add("end", 2)));
        assertEquals("a\nX", sandbox.run(w("cat /workspace/new/dir/file.txt")).getString("content"));
        assertEquals("664 " + System.getProperty("user.name"), sandbox.run(
                w("find /workspace/new/dir/file.txt -printf '%m %u'")).getString("content"));
    }
}
