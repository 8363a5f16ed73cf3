package it.dev.dockyard.executor;

/** {@link BashProtocolIT}, every test of it, in a sandbox on gVisor (the engine's runsc: docker/ensure-gvisor.sh). */
@SandboxTest.OnRuntime("runsc")
class GvisorBashProtocolIT extends BashProtocolIT {
}
