/**
 * The executor's HTTP face (PROTOCOL.md): session-key auth, health and server info, configure,
 * execute_action and file transfers, and E2B's envd routes, each resource handing the request to
 * the executor core ({@code dev.dockyard.executor} in the {@code executor-core} module) and
 * mapping its answer.
 */
package dev.dockyard.executor.api;
