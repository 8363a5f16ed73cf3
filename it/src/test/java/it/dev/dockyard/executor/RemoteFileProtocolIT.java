package it.dev.dockyard.executor;

import it.dev.dockyard.e2e.RemoteNodeFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/**
 * {@link FileProtocolIT} on a runtime of a remote node: the build's control plane provisions it
 * on {@code remote1}, another control plane started for this suite ({@link RemoteNodeFixture}), and
 * the suite reaches it through the first control plane's proxy, then the second's. Same assertions.
 */
class RemoteFileProtocolIT extends FileProtocolIT {

    @BeforeAll
    static void startSandbox(TestInfo suite) {
        try {
            RemoteNodeFixture.start();
        } catch (Exception e) {
            throw new AssertionError("the remote node could not be set up: " + e, e);
        }
        sandbox = NodeSandbox.start(RemoteNodeFixture.NODE);
    }

    @AfterAll
    static void removeSandbox() {
        try {
            if (sandbox != null) {
                sandbox.close();
            }
            RemoteNodeFixture.stop();
        } catch (Exception e) {
            throw new AssertionError("the remote node could not be taken down: " + e, e);
        }
    }
}
