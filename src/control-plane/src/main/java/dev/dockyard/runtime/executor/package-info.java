/** The control plane's side of PROTOCOL.md: readiness checks and actions sent to a sandbox's executor. */
package dev.dockyard.runtime.executor;
