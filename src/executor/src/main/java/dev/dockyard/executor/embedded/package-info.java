/**
 * The executor WAR run as a program: the sandbox's default ({@code embedded}) executor server, where
 * the {@code liberty} mode deploys the same WAR on Open Liberty instead.
 * {@link dev.dockyard.executor.embedded.EmbeddedExecutor} starts the same executor
 * ({@link dev.dockyard.executor.api.ExecutorLifecycle}) and serves PROTOCOL.md through
 * {@link dev.dockyard.executor.http.ProtocolHttpServer} on the JDK's own HTTP server, with no servlet
 * container and no OSGi, so that the boot takes about as long as the JVM and the shell take. It listens
 * where Liberty's {@code server.xml} does ({@code EXECUTOR_HOST}, {@code EXECUTOR_PORT}, 8000 by
 * default). Request threads are not bounded, on purpose: an action holds its thread until it ends, and
 * {@code /alive}, {@code /ready} and uploads must still be answered meanwhile.
 */
package dev.dockyard.executor.embedded;
