/**
 * Keeping the database and the backend in agreement, so that no crash, race or kill -9 leaves a
 * sandbox without a runtime or a runtime without a sandbox. The backend's labels are trusted over
 * any in-memory view; nothing is done when the backend cannot be listed.
 */
package dev.dockyard.runtime.reconciliation;
