/**
 * Sandboxes as Docker containers, the default kind of node. The only package that uses
 * docker-java (an architecture test holds it to that).
 *
 * <p>{@link dev.dockyard.backend.docker.DockerNodeFactory} opens an engine as a node (a
 * {@link dev.dockyard.backend.docker.DockerNode}: one client for sandboxes, one for builds);
 * {@link dev.dockyard.backend.docker.DockerBackend} creates, starts, pauses and removes
 * hardened, labelled containers; the rest confine them: workspace volumes (size-bounded on loop
 * disks where this process may make them), read-only roots with home volumes, an environment no one
 * outside reads, an egress policy's own network, packet filter and resolver, and runtime image
 * builds that never pull.
 */
package dev.dockyard.backend.docker;
