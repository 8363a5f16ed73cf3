package dev.dockyard.idempotency;

import java.time.Instant;
import java.util.Optional;

/**
 * Where first answers are kept under their idempotency keys: the port of
 * {@code application.idempotency.IdempotencyKeys}, implemented on JPA in {@code persistence}.
 * Transactions belong to the caller (each of its steps is a short one of its own), so every method
 * joins whatever transaction is active.
 */
public interface IdempotentAnswers {

    /** Stores a new claim; a key claimed already fails here, on the primary key, not at the commit. */
    void add(IdempotentAnswer answer);

    /** The answer stored under the key; changes to it are stored with the transaction. */
    Optional<IdempotentAnswer> find(String id);

    /** Lets go of an answer read: what happens to the copy the caller holds no longer reaches the database. */
    void detach(IdempotentAnswer answer);

    void remove(IdempotentAnswer answer);

    /** Removes every answer whose key starts with {@code prefix}, taken literally; how many there were. */
    int removeStartingWith(String prefix);

    /**
     * Removes the key's claim if it is still unanswered and still {@code claimer}'s, in one
     * statement: two control planes forgetting the same abandoned claim remove it once, and never
     * the new claim one of them made after. Whether it was removed.
     */
    boolean removeUnansweredClaim(String id, String claimer);

    /** Removes every answer claimed before {@code before}; how many there were. */
    int removeCreatedBefore(Instant before);
}
