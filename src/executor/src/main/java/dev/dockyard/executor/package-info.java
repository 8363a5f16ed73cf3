/**
 * The executor that runs inside every sandbox and carries out an agent's actions.
 *
 * <p>{@code api} is the HTTP face of PROTOCOL.md (auth, health, execute_action); {@code bash} is
 * the one persistent shell of the sandbox; {@code files} reads and writes files the way OpenHands
 * does; {@code config} is what the container was started with. One action runs at a time.
 */
package dev.dockyard.executor;
