/**
 * Sandboxes as Kubernetes pods, a node of type {@code kubernetes}. The only package that uses
 * fabric8 (an architecture test holds it to that).
 *
 * <p>One runtime is a Pod, a Secret with its session key and a PersistentVolumeClaim for its
 * workspace, labelled like Docker's resources; workspaces move in and out as tar streams through
 * the pod's exec, the same streams Docker's archive endpoints give, so a runtime migrates between
 * node types. Images come from the cluster's registries: Dockyard builds none there.
 */
package dev.dockyard.backend.kubernetes;
