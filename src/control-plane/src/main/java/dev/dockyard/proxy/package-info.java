/**
 * Service URLs: every runtime's ports reachable through the control plane, on a listener of their
 * own ({@code dockyard.proxy.port}), never on the origin of the API and the console. Path mode
 * ({@code {services' base}/{runtime id}/...}, as OpenHands' runtime API clients build them): the main
 * service (the agent server or Dockyard's executor) at the root, {@code /vscode} and
 * {@code /work-1}, {@code /work-2} beside it; subdomain mode names the runtime and service by the
 * host instead ({@code work-1-rt-….domain}), an origin per runtime. HTTP and WebSocket, streamed both ways, for the
 * holder of the runtime's session key only. The proxy learns where a runtime's ports are from
 * {@link dev.dockyard.application.remote.ProxyTargets}, which the application ring offers it (and
 * implements in {@code ServiceEndpoints}): the interface ring calls inwards, never the other way.
 *
 * <p>The model, in the order a request meets it:
 * <ul>
 * <li>{@link dev.dockyard.proxy.ServiceProxyFilter} claims the paths {@link dev.dockyard.proxy.ServiceRoute}
 *     recognises ({@code /rt-<16 hex>/...}, or a host {@code rt-<16 hex>.…}) on the services' port, and
 *     answers 404 for every other path there; on the API's port it passes every path on untouched
 *     but a runtime's (404).</li>
 * <li>{@link dev.dockyard.proxy.Admission} decides, in a fixed order, between a 404 (no such runtime),
 *     401 (no key: {@link dev.dockyard.proxy.ProxyAuthentication}), 404 (no such service), 503 (paused),
 *     503 with {@code Retry-After} (being recovered: its sandbox stopped while READY), 502 (still
 *     provisioning) and going through; errors are FastAPI's {@code {"detail": ...}}. A main service
 *     that refuses the connection is a runtime being recovered too.</li>
 * <li>{@link dev.dockyard.proxy.ForwardedRequest} and {@link dev.dockyard.proxy.ForwardedResponse} rewrite
 *     headers, query and cookies: the sandbox only ever sees the internal key, the client only the
 *     public one; hop-by-hop headers ({@link dev.dockyard.proxy.HopByHop}) stay behind; the
 *     service's cookies stay within the runtime and every answer carries {@code nosniff} and, in
 *     path mode, a sandboxing Content-Security-Policy.</li>
 * <li>{@link dev.dockyard.proxy.HttpForwarding} streams plain HTTP with the JDK's HTTP client;
 *     {@link dev.dockyard.proxy.WebSocketTunnels} repeats an upgrade handshake on a socket and, after a
 *     101, joins it to the client's connection upgraded through the servlet container
 *     ({@link dev.dockyard.proxy.WebSocketTunnel}).</li>
 * <li>Every finished exchange and session is reported to {@link dev.dockyard.application.remote.ProxyTargets#traffic}.</li>
 * </ul>
 * Pure logic (routes, admission, rewriting, framing) is kept apart from I/O so that it is tested
 * without a network; the I/O is tested end to end in a real Liberty (ServiceProxyIT).
 */
package dev.dockyard.proxy;
