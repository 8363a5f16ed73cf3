/**
 * Requests that carry an {@code Idempotency-Key}: the first claims the key and is carried out,
 * its answer is stored, and every retry with the same key and body gets that answer again instead
 * of a second runtime or action. Keys are the user's own and are forgotten after a retention.
 */
package dev.dockyard.application.idempotency;
