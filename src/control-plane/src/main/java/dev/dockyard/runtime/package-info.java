/**
 * The runtime model: a {@link dev.dockyard.runtime.SandboxRuntime} per conversation, its
 * {@link dev.dockyard.runtime.RuntimeStatus} life cycle and the history of its transitions.
 * Provisioning ({@code runtime.provisioning}) drives it; the executor client
 * ({@code runtime.executor}) talks to the sandbox once it is READY.
 */
package dev.dockyard.runtime;
