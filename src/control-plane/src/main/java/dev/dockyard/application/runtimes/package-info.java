/**
 * The runtimes use case: what the REST API and the console do to one runtime.
 * {@link dev.dockyard.application.runtimes.RuntimeService} provisions (a workspace and an image
 * resolved first), forks, waits for a runtime to settle without holding a thread, pauses, resumes,
 * hibernates and deletes; {@link dev.dockyard.application.runtimes.ReadyRuntimes} admits an action
 * or a transfer only into a READY runtime whose executor still listens, waking a sleeping one
 * first; {@link dev.dockyard.application.runtimes.ActionService} rates, decides, forwards and
 * audits each action; {@link dev.dockyard.application.runtimes.SandboxFiles} carries uploads and
 * downloads.
 */
package dev.dockyard.application.runtimes;
