/**
 * A live runtime's life after READY: pause (frozen, keeping memory and shell) and resume, and the
 * per-runtime gates that admit actions, pauses and migrations without check-then-act races.
 */
package dev.dockyard.runtime.lifecycle;
