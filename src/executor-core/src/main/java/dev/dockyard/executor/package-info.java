/**
 * The executor's action logic, shared by every place an agent's actions run: the executor WAR in
 * each sandbox wraps it with its HTTP face ({@code dev.dockyard.executor.api}), and the control
 * plane embeds it for runtimes that have no executor process of their own.
 *
 * <p>{@code bash} is the one persistent shell of a runtime; {@code files} reads, writes, edits and
 * transfers files the way OpenHands does; {@code plugins} are Jupyter and the browser;
 * {@code config} is what the executor was started with. {@link dev.dockyard.executor.ActionExecutor}
 * runs one action at a time; {@link dev.dockyard.executor.RequestLedger} answers a retried request
 * from its first outcome. This module depends on the protocol and JSON-P only:
 * never on Liberty, JAX-RS, docker-java or JPA.
 */
package dev.dockyard.executor;
