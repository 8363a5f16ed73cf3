package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dockyard.application.Refused;
import org.junit.jupiter.api.Test;

/**
 * A first request under an Idempotency-Key refused with Retry-After (its node's engine restarting,
 * its source sandbox being recovered, the database down) is no answer to replay for the key's day:
 * it fails the first, so the claim is forgotten and the retry the refusal asks for carries the
 * request out (found reviewing the forks' keys, 2026-11-30).
 */
class TransientRefusalsTest {

    @Test
    void shouldLetARefusalThatAsksToComeBackFailTheFirstRequestInsteadOfBeingKept() {
        Refused later = new Refused(Refused.Reason.NODE_UNAVAILABLE, "node 'node2' does not answer").retryAfter(5);
        Refused thrown = assertThrows(Refused.class, () -> ProvisionAnswers.answered(() -> {
            throw later;
        }));
        assertSame(later, thrown);
    }
}
