package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import it.dev.dockyard.support.LocalNode;
import it.dev.dockyard.support.Sandbox;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * {@link FileProtocolIT} on a runtime of the local backend, through the control plane; the same
 * assertions, a written file's owner being the node's sandbox user rather than the image's.
 */
@SandboxTest.OnNode(LocalNode.NAME)
class LocalFileProtocolIT extends FileProtocolIT {

    @Test
    @Override
    void shouldWriteCreatingParentsAndReplacingLineRanges() {
        JsonObject obs = sandbox.execute(Sandbox.action("write", Sandbox.args().add("path",
                w("/workspace/new/dir/file.txt")).add("content", "a\nb")));
        assertEquals("write", obs.getString("observation"));
        assertEquals(w("I wrote to the file /workspace/new/dir/file.txt."), obs.getString("message"));
        assertEquals("a\nb", sandbox.run(w("cat /workspace/new/dir/file.txt")).getString("content"));
        sandbox.execute(Sandbox.action("write", Sandbox.args().add("path", w("/workspace/new/dir/file.txt"))
                .add("content", "X").add("start", 1).add("end", 2)));
        assertEquals("a\nX", sandbox.run(w("cat /workspace/new/dir/file.txt")).getString("content"));
        assertEquals("664 " + LocalNode.USER, sandbox.run(w("find /workspace/new/dir/file.txt -printf '%m %u'"))
                .getString("content"));
    }
}
