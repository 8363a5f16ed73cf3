/**
 * What the executor was started with. {@link dev.dockyard.executor.config.ExecutorSettings} reads it
 * once from an environment map: the executor WAR passes its process environment, and the control
 * plane's {@code cli} runtimes pass one they build for an executor embedded on the host. The session
 * key is preferably read from the file named by {@code SESSION_API_KEY_FILE}, which is deleted once
 * read so that neither {@code docker inspect} nor the agent's shell can find the key later; the
 * variables in {@code PRIVATE_ENV} are removed from the environment the shell inherits. Without a
 * key the executor does not start: it never runs unauthenticated.
 */
package dev.dockyard.executor.config;
