/**
 * The port to whatever runs sandboxes. {@link dev.dockyard.backend.RuntimeBackend} creates, starts,
 * inspects and removes one sandbox per runtime; adapters ({@code backend.docker}, later Kubernetes
 * and local) implement it. Every resource an adapter creates carries the {@link dev.dockyard.backend.Labels}.
 */
package dev.dockyard.backend;
