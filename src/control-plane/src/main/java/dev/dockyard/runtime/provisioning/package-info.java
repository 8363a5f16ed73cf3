/**
 * Bringing a runtime up and tearing it down.
 *
 * <p>The rule: record intent first in a short transaction of its own
 * ({@link dev.dockyard.runtime.provisioning.ProvisioningJournal}), call the backend outside any
 * transaction, then record the outcome in another short transaction. A failure at any step removes
 * what was created and leaves the runtime in ERROR with a message naming the step. A status change
 * the life cycle refuses (the runtime was deleted meanwhile) makes provisioning remove the sandbox
 * it was building instead of resurrecting the runtime.
 */
package dev.dockyard.runtime.provisioning;
