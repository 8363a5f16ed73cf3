/**
 * The executor's light HTTP face: PROTOCOL.md's routes on the JDK's own HTTP server, over the
 * executor core. Serves the executor WAR run as a program (embedded mode) and a cli node's
 * in-process executors; on an app server the WAR's JAX-RS resources serve the same requests.
 */
package dev.dockyard.executor.http;
