/**
 * The use cases of a runtime's files beyond its life: keeping its workspace when it is deleted and
 * giving it to a later runtime ({@link dev.dockyard.application.workspaces.Workspaces}), and
 * snapshots and forks ({@link dev.dockyard.application.workspaces.Snapshots}). Both check the
 * owner before anything moves and record intent and outcome in short transactions, never across a
 * backend's copy.
 */
package dev.dockyard.application.workspaces;
