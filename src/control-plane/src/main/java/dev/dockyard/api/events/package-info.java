/**
 * Server-sent event streams of the REST API, in the interface ring because they speak JAX-RS's
 * SSE: one runtime's status changes and progress
 * ({@link dev.dockyard.api.events.RuntimeEventStreams}, {@code GET /runtimes/{id}/events}) and the
 * feed of every runtime a caller can see ({@link dev.dockyard.api.events.RuntimeFeed}). Both listen
 * to committed status changes ({@code runtime.StatusEvents}) and hand each to a per-stream queue
 * ({@link dev.dockyard.api.events.QueuedEventStream}) drained on a managed thread, so a slow client
 * never holds up the transaction that published the change; one timer per service pings the open
 * streams ({@link dev.dockyard.api.events.OpenEventStreams}).
 */
package dev.dockyard.api.events;
