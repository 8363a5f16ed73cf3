package dev.dockyard.runtime;

/**
 * Progress of a long step of one runtime's provisioning (its image build): not a transition, so not
 * stored; published live on the runtime's event stream as {@code progress} events.
 *
 * @param step  the build step under way (Docker's "Step k/n"), 0 before the first
 * @param steps how many steps the build has, 0 while unknown
 * @param line  the latest line of the build's output
 */
public record RuntimeProgress(String runtimeId, String buildId, int step, int steps, String line) {
}
