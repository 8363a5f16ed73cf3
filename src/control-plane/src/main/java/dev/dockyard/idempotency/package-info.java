/**
 * The first answers to requests that carry an {@code Idempotency-Key}, as stored: the entity and
 * its port ({@link dev.dockyard.idempotency.IdempotentAnswers}), implemented on JPA in
 * {@code persistence}. Claiming a key, replaying its answer and forgetting old keys are the use
 * case's, in {@code application.idempotency}.
 */
package dev.dockyard.idempotency;
