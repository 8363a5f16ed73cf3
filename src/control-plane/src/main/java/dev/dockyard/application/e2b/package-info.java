/**
 * E2B's API served by Dockyard: the use cases behind E2B's control API ({@code dev.dockyard.e2b})
 * — create a sandbox from a template (a warm pool, a snapshot or an image, {@link dev.dockyard.application.e2b.Templates}),
 * find, list, kill, pause, connect (resume), set its timeout, measure it, fork it
 * ({@link dev.dockyard.application.e2b.E2bSandboxes}), take and list snapshots
 * ({@link dev.dockyard.application.e2b.E2bSnapshots}) — over the same provisioning, quotas,
 * reconciler and idle lifecycle as Dockyard's own API; and the names E2B gives Dockyard's things
 * ({@link dev.dockyard.application.e2b.SandboxIds}). The in-sandbox half (envd) is the executor's;
 * the service proxy carries it.
 */
package dev.dockyard.application.e2b;
