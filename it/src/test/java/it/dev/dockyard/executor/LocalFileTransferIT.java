package it.dev.dockyard.executor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/** {@link FileTransferIT} on a runtime of the local backend, through the control plane. */
class LocalFileTransferIT extends FileTransferIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = NodeSandbox.start(LocalNode.NAME);
    }
}
