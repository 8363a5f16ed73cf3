package it.dev.dockyard.executor;

import it.dev.dockyard.support.RemoteNodeFixture;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link PathConfinementIT} on a runtime of a remote node: the shared control plane provisions it
 * on {@code remote2}, another control plane started for these suites ({@link RemoteNodeFixture}), and
 * the suite reaches it through the first control plane's proxy, then the second's. Same assertions.
 */
@SandboxTest.OnNode(RemoteNodeFixture.NODE)
@ExtendWith(RemoteNodeFixture.Lifecycle.class)
class RemotePathConfinementIT extends PathConfinementIT {
}
