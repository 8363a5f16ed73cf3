/**
 * Nodes of type {@code cli}: runtimes with no sandbox at all. The control plane runs each
 * runtime's actions in its own process with the executor core ({@code dev.dockyard.executor}):
 * one persistent shell and one directory per runtime under the node's root, as the control
 * plane's own user, on its own host. No isolation: an agent's command can read and change
 * whatever that user can (docs/backends.md "CLI backend"), so such a node exists only when an administrator
 * configures it and says so ({@code dockyard.node.<name>.i-understand-no-isolation=true}), and it
 * takes only runtimes that name it ({@code placement=explicit} by default).
 *
 * <p>How the rest of the control plane reaches these runtimes (the design choice): every path that
 * talks to a runtime (actions, transfers, readiness, configuration, the OpenHands runtime API's
 * proxy to {@code {base}/{runtime_id}/...}, the reconciler) does so by the executor URI a backend
 * returns, over HTTP, with the runtime's session key. Rather than an in-process channel beside
 * {@code ExecutorClient}, which every one of those paths would have to branch for, each runtime
 * gets what a Docker sandbox has: an executor answering PROTOCOL.md on a port of 127.0.0.1
 * ({@link dev.dockyard.executor.http.ProtocolHttpServer}, the JDK's own HTTP server, bound to the
 * loopback interface only, checking the session key). Nothing outside this package knows a cli
 * runtime from a Docker one. The request-to-answer mapping is the executor core's
 * ({@code ExecutorRequests}), shared with the executor WAR's JAX-RS face, so both answer the same
 * bytes; the server here only routes.
 *
 * <p>A runtime's directory, {@code <root>/<sandbox name>/}: {@code workspace/} (the agent's files
 * and the shell's first directory; file actions are confined to it by the host guard, which also
 * refuses device names, control characters and lookalike separators), {@code home/} (its HOME),
 * {@code run/} (700: pushed configuration, long commands) and {@code runtime.properties}, the
 * marker that lists it as managed (runtime, conversation, owning control plane, creation time),
 * so that after a restart the reconciler finds the directories this control plane left and
 * either starts their runtimes again or removes them. The session key is held in memory only.
 *
 * <p>Lifecycle: pause and unpause send SIGSTOP and SIGCONT to the shell and every process it
 * started (a process that detached to another parent is not reached); stop ends them and keeps
 * the directory; revive starts a new shell there; remove ends them and deletes the directory.
 * Archive and restore are tar streams of the workspace, so a runtime migrates to and from Docker.
 */
package dev.dockyard.backend.cli;
