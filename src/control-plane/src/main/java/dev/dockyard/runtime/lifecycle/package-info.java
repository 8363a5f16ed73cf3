/**
 * A live runtime's life after READY: pause (frozen, keeping memory and shell) and resume,
 * hibernation (container stopped, files kept) and waking, the idle lifecycle that pauses,
 * hibernates and stops runtimes by their idle timeout, the hibernate-after setting and their TTL,
 * and the renewal of credentials inside running sandboxes
 * ({@link dev.dockyard.runtime.lifecycle.CredentialRenewal} on the schedule of
 * {@link dev.dockyard.runtime.lifecycle.CredentialRefresher}). Each of these takes the runtime's
 * gate first ({@code runtime.RuntimeGates}), which admits actions, pauses, sleeps and migrations
 * without check-then-act races.
 */
package dev.dockyard.runtime.lifecycle;
