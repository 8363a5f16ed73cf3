/**
 * A live runtime's life after READY: pause (frozen, keeping memory and shell) and resume.
 */
package dev.dockyard.runtime.lifecycle;
