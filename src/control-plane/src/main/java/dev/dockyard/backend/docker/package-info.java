/**
 * Sandboxes as Docker containers, the default kind of node. The only package that uses
 * docker-java (an architecture test holds it to that).
 *
 * <p>{@link dev.dockyard.backend.docker.DockerNodeFactory} opens an engine as a node (a
 * {@link dev.dockyard.backend.docker.DockerNode}: one client for sandboxes, one for builds);
 * {@link dev.dockyard.backend.docker.DockerBackend} is a Docker node's backend, which
 * hands each job to a class of its own: {@code SandboxCreation} makes hardened, labelled containers
 * ({@code SandboxHardening}, {@code SandboxConfinement}), {@code ContainerLifecycle} starts, settles,
 * pauses and stops them, {@code ContainerFiles} hands keys and environments in and archives out,
 * {@code SandboxRemoval} removes them (keeping a workspace if asked), {@code SandboxSnapshots}
 * commits them, and {@code ContainerViews} reads their state and lists them. The rest confine
 * them: workspace volumes (size-bounded on loop disks where this process may make them), read-only
 * roots with home volumes, an environment no one outside reads, an egress policy's own network,
 * packet filter and resolver, and runtime image builds that never pull.
 */
package dev.dockyard.backend.docker;
