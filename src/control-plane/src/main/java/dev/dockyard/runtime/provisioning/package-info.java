/**
 * Bringing a runtime up and tearing it down.
 *
 * <p>The rule: record intent first in a short transaction of its own
 * ({@link dev.dockyard.runtime.provisioning.ProvisioningJournal}), call the backend outside any
 * transaction, then record the outcome in another short transaction. A failure at any step removes
 * what was created and leaves the runtime in ERROR with a message naming the step. A status change
 * the life cycle refuses (the runtime was deleted meanwhile) makes provisioning remove the sandbox
 * it was building instead of resurrecting the runtime.
 *
 * <p>Who does what: {@link dev.dockyard.runtime.provisioning.Provisioner} is the entry the use
 * cases call. A request is served from a warm pool when one has a sandbox of its settings ready
 * ({@link dev.dockyard.runtime.provisioning.WarmClaims}), else in a sandbox created for it
 * ({@link dev.dockyard.runtime.provisioning.ColdProvisioning}).
 * {@link dev.dockyard.runtime.provisioning.Migrations} moves a runtime to another node: a new runtime,
 * booted cold, with the workspace of the old one
 * ({@link dev.dockyard.runtime.provisioning.MigrationSource}).
 * {@link dev.dockyard.runtime.provisioning.RuntimesInFlight} knows which runtimes this control plane
 * is bringing up. Cold provisioning and warm claims share
 * {@link dev.dockyard.runtime.provisioning.RuntimeRegistrations} (the runtime a request describes,
 * registered through {@link dev.dockyard.runtime.provisioning.Admissions}) and
 * {@link dev.dockyard.runtime.provisioning.ProvisioningCleanup} (failures recorded, sandboxes
 * removed).
 */
package dev.dockyard.runtime.provisioning;
