package it.dev.dockyard.executor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/** {@link EditorProtocolIT} on a runtime of the local backend, through the control plane. */
class LocalEditorProtocolIT extends EditorProtocolIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = NodeSandbox.start(LocalNode.NAME);
    }
}
