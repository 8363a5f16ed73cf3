/**
 * E2B's envd, the protocol E2B's SDKs speak to a sandbox, served by Dockyard's executor at the root
 * of its port beside PROTOCOL.md's routes and behind the same session key (the control plane's proxy
 * checks E2B's access token and puts the session key in its place). {@link dev.dockyard.executor.envd.Envd}
 * holds what outlives a request; {@link dev.dockyard.executor.envd.EnvdRequests} is what both HTTP
 * faces call (the embedded server's {@code EnvdRoutes}, the WAR's {@code EnvdResource}).
 *
 * <p>The model, by service: {@link dev.dockyard.executor.envd.EnvdProcesses} (the process table,
 * each a {@link dev.dockyard.executor.envd.RunningProcess} whose output goes to the clients attached,
 * each an {@link dev.dockyard.executor.envd.EventStream}); {@link dev.dockyard.executor.envd.EnvdFilesystem}
 * (files and directories as {@link dev.dockyard.executor.envd.EntryInfos}, watches as
 * {@link dev.dockyard.executor.envd.DirectoryWatch}); {@link dev.dockyard.executor.envd.EnvdFiles}
 * ({@code /files}, with {@link dev.dockyard.executor.envd.FileMetadata}); who a call acts as
 * ({@link dev.dockyard.executor.envd.EnvdUsers}); and the Connect protocol's JSON wire
 * ({@link dev.dockyard.executor.envd.ConnectWire}, {@link dev.dockyard.executor.envd.ConnectError}).
 * docs/PROTOCOL.md ("envd") says what differs from E2B's envd and why.
 */
package dev.dockyard.executor.envd;
