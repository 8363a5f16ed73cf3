/**
 * The application ring (ARCHITECTURE.md): the use cases, one sub-package each, between the
 * interface ring (the REST resources, the Remote Runtime API, the console) and the domain. A
 * resource only parses, authorises, calls one use case and maps the answer:
 * <ul>
 * <li>{@code application.runtimes}: provisioning, forking, waiting for a runtime to settle and its
 *     life cycle ({@link dev.dockyard.application.runtimes.RuntimeService}), actions with their
 *     policy, audit and forwarding ({@link dev.dockyard.application.runtimes.ActionService}), file
 *     transfers ({@link dev.dockyard.application.runtimes.SandboxFiles});</li>
 * <li>{@code application.workspaces}: kept workspaces and snapshots; {@code application.images}:
 *     who may use which image; {@code application.idempotency}: replayed answers to retried
 *     requests; {@code application.users}: accounts, keys and what a deleted user leaves;
 *     {@code application.remote}: the Remote Runtime API's own use cases.</li>
 * </ul>
 * This package itself holds only what they share: {@link dev.dockyard.application.Refused}, the
 * refusal the API maps to problem+json of the same name, and the {@code Deadlines} every wait is
 * bounded by. It imports none of its sub-packages, so they form no cycle with it.
 *
 * <p>No wait here holds a thread: waits are futures completed by an event (a committed status
 * change, a first answer stored) or by a deadline on the managed scheduler, so a request thread
 * is given back while a client waits. Status streams, which speak SSE, are the interface ring's
 * ({@code api.events}). Nothing here imports the API.
 */
package dev.dockyard.application;
