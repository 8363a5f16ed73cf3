/**
 * The application ring (ARCHITECTURE.md): one service per use case of the runtimes API, so that
 * {@code api.RuntimeResource} only parses, authorises, calls one of these and maps the answer.
 * Policy, audit and forwarding of actions ({@link dev.dockyard.application.ActionService}),
 * idempotent replay ({@link dev.dockyard.application.idempotency.IdempotentRequests}), waiting for a runtime
 * to settle and its life cycle ({@link dev.dockyard.application.RuntimeService}) and file transfers
 * ({@link dev.dockyard.application.SandboxFiles}). Status streams, which speak SSE, are the
 * interface ring's ({@code api.events}).
 *
 * <p>No wait here holds a thread: waits are futures completed by an event (a committed status
 * change, a first answer stored) or by a deadline on the managed scheduler, so a request thread
 * is given back while a client waits. Refusals are {@link dev.dockyard.application.Refused}, which
 * the API maps to problem+json of the same name; this package does not import the API.
 */
package dev.dockyard.application;
