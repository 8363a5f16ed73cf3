package it.dev.dockyard.executor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/**
 * {@link BashProtocolIT} on a runtime of the local backend (node {@code local1} of the it build):
 * the executor as a host process, reached through the control plane; the same assertions.
 */
class LocalBashProtocolIT extends BashProtocolIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        sandbox = NodeSandbox.start(LocalNode.NAME);
    }
}
