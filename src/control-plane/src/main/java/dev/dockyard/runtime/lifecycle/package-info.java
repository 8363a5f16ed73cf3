/**
 * A live runtime's life after READY: pause (frozen, keeping memory and shell) and resume,
 * hibernation (container stopped, files kept) and waking, the idle lifecycle that pauses,
 * hibernates and stops runtimes by their idle timeout, the hibernate-after setting and their TTL,
 * and the per-runtime gates that admit actions, pauses, sleeps and migrations without
 * check-then-act races.
 */
package dev.dockyard.runtime.lifecycle;
