package dev.dockyard.runtime.reconciliation;

/**
 * A request found a runtime's executor refusing connections: its process is gone (killed or
 * crashed; its container stops with it) or starting again. Fired asynchronously by the request;
 * {@link ReconcilerTimer} hears it and runs a pass now instead of at its next tick.
 */
public record SandboxUnanswered(String runtimeId) {
}
