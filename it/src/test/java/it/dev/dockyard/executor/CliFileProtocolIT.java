package it.dev.dockyard.executor;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/** {@link FileProtocolIT} (file actions (read, write, edit)) on a runtime of the cli node, with the same assertions. */
class CliFileProtocolIT extends FileProtocolIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = CliNodeSuites.start();
    }

    @AfterAll
    static void cleanHost() {
        CliNodeSuites.cleanHostTmp();
    }
}
