package it.dev.dockyard.executor;

import it.dev.dockyard.support.LocalNode;

/** {@link FileTransferIT} on a runtime of the local backend, through the control plane. */
@SandboxTest.OnNode(LocalNode.NAME)
class LocalFileTransferIT extends FileTransferIT {
}
