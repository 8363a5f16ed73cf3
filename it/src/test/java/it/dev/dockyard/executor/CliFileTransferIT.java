package it.dev.dockyard.executor;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/** {@link FileTransferIT} (file transfers (upload, download, list)) on a runtime of the cli node, with the same assertions. */
class CliFileTransferIT extends FileTransferIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = CliNodeSuites.start();
    }

    @AfterAll
    static void cleanHost() {
        CliNodeSuites.cleanHostTmp();
    }
}
