package it.dev.dockyard.executor;

/** {@link EditorProtocolIT}, every test of it, in a sandbox on gVisor (the engine's runsc: docker/ensure-gvisor.sh). */
@SandboxTest.OnRuntime("runsc")
class GvisorEditorProtocolIT extends EditorProtocolIT {
}
