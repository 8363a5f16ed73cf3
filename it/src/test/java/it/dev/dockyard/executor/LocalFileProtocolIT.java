package it.dev.dockyard.executor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/** {@link FileProtocolIT} on a runtime of the local backend, through the control plane. */
class LocalFileProtocolIT extends FileProtocolIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = NodeSandbox.start(LocalNode.NAME);
    }
}
