/**
 * Service URLs: every runtime's ports reachable through the control plane, path mode
 * ({@code {public url}/{runtime id}/...}, as OpenHands' runtime API clients build them): the main
 * service (the agent server or Dockyard's executor) at the root, {@code /vscode} and
 * {@code /work-1}, {@code /work-2} beside it. HTTP and WebSocket, streamed both ways, for the
 * holder of the runtime's session key only. The proxy learns where a runtime's ports are from
 * {@link dev.dockyard.proxy.ProxyTargets}, a port the application layer implements.
 */
package dev.dockyard.proxy;
