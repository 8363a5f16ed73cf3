package it.dev.dockyard.executor;

/** {@link FileProtocolIT}, every test of it, in a sandbox on gVisor (the engine's runsc: docker/ensure-gvisor.sh). */
@SandboxTest.OnRuntime("runsc")
class GvisorFileProtocolIT extends FileProtocolIT {
}
