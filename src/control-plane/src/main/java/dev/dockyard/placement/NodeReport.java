package dev.dockyard.placement;

import java.time.Instant;

/**
 * The last health probe of a node's backend.
 *
 * @param healthy   whether it answered
 * @param checkedAt when it was probed
 * @param error     why it failed (no secrets: an exception's message), or null
 */
public record NodeReport(boolean healthy, Instant checkedAt, String error) {
}
