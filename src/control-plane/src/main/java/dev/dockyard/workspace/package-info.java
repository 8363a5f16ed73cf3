/**
 * What a runtime's files are made of and outlive it by: the repository its workspace starts from
 * and how it is prepared (clone, branch, setup script), the microagents read from it, kept
 * workspaces and snapshots with their owners, and their records in the database. The use cases
 * over them (keeping, reusing, snapshotting, forking) are in {@code application.workspaces}.
 */
package dev.dockyard.workspace;
