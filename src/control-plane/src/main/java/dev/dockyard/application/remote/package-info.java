/**
 * Dockyard as the sandbox service of an OpenHands deployment: the use cases behind OpenHands'
 * Remote Runtime API ({@code dev.dockyard.runtimeapi}) — start a runtime for a session (Dockyard's
 * executor for a Dockyard runtime image, the image's own program otherwise), find, pause, resume
 * with a new key, stop — over the same provisioning, quotas, reconciler and audit as Dockyard's
 * own API; and the proxy's view of runtimes: what the service proxy may ask
 * ({@link dev.dockyard.application.remote.ProxyTargets}, answering a
 * {@link dev.dockyard.application.remote.ProxyTarget} per runtime) and its implementation
 * ({@link dev.dockyard.application.remote.ServiceEndpoints}).
 */
package dev.dockyard.application.remote;
