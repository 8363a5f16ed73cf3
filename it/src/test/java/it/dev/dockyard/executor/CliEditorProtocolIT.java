package it.dev.dockyard.executor;

import it.dev.dockyard.support.HostTmp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@link EditorProtocolIT} (editor) on a runtime of the cli node, with the same assertions. */
@SandboxTest.OnNode(value = "cli1", onThisHost = true)
@ResourceLock(HostTmp.LOCK)
class CliEditorProtocolIT extends EditorProtocolIT {

    @AfterAll
    static void clearHostTmp() {
        HostTmp.clear();
    }
}
