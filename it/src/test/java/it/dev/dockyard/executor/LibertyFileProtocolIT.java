package it.dev.dockyard.executor;

/**
 * {@link FileProtocolIT} against the same WAR deployed on Open Liberty in the sandbox (the {@code liberty}
 * executor server) rather than run by itself on the JDK's HTTP server (the default, {@code embedded}):
 * both faces of the executor answer the protocol alike.
 */
@SandboxTest.StartedWith(args = {"-e", "DOCKYARD_EXECUTOR_SERVER=liberty"})
class LibertyFileProtocolIT extends FileProtocolIT {
}
