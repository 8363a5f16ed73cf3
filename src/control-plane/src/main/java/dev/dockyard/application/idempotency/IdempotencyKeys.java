package dev.dockyard.application.idempotency;

import dev.dockyard.idempotency.IdempotentAnswer;
import dev.dockyard.idempotency.IdempotentAnswers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Stores first answers under their idempotency keys, each step in a short transaction of its own;
 * the answers are kept through their port ({@link IdempotentAnswers}).
 */
@ApplicationScoped
public class IdempotencyKeys {

    /** How long a key is remembered. */
    public static final Duration RETENTION = Duration.ofHours(24);

    @Inject
    IdempotentAnswers answers;

    @Inject
    Clock clock;

    /**
     * Claims the key for a request of the process {@code claimer}; fails (on the primary key) when
     * another request claimed it first.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void claim(String id, String requestHash, String claimer) {
        answers.add(new IdempotentAnswer(id, requestHash, clock.instant(), claimer));
    }

    /**
     * Forgets a claim that is still unanswered and still {@code claimer}'s (whose process is gone),
     * so that the retry at hand can claim the key; false when it was answered or taken meanwhile.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean forgetAbandoned(String id, String claimer) {
        return answers.removeUnansweredClaim(id, claimer);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Optional<IdempotentAnswer> find(String id) {
        Optional<IdempotentAnswer> answer = answers.find(id);
        answer.filter(IdempotentAnswer::completed).ifPresent(answers::detach);
        return answer;
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void complete(String id, int status, String body) {
        answers.find(id).ifPresent(answer -> answer.complete(status, body));
    }

    /** Forgets a claim whose request failed unexpectedly, so that a retry can run it. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void release(String id) {
        answers.find(id).filter(answer -> !answer.completed()).ifPresent(answers::remove);
    }

    /**
     * Forgets every key of the user (stored as {@code userId/key}): a deleted user's first answers
     * must not be replayed to a new account given the same id.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int forgetUser(String userId) {
        return answers.removeStartingWith(userId + "/");
    }

    /** Forgets keys older than the retention. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int purge() {
        return answers.removeCreatedBefore(clock.instant().minus(RETENTION));
    }
}
