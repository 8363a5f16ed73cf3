/**
 * E2B's API served by Dockyard: the use cases behind E2B's control API ({@code dev.dockyard.e2b})
 * — create a sandbox from a template (an image or a warm pool), find, list, kill, pause, connect
 * (resume), set its timeout — over the same provisioning, quotas, reconciler and audit as Dockyard's
 * own API; and the names E2B gives Dockyard's things ({@link dev.dockyard.application.e2b.SandboxIds}).
 * The in-sandbox half (envd) is the executor's; the service proxy carries it.
 */
package dev.dockyard.application.e2b;
