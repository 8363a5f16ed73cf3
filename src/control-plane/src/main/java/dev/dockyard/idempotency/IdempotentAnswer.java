package dev.dockyard.idempotency;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The first answer to a request carrying an {@code Idempotency-Key}: claimed (status null) before
 * the request is carried out, completed with the answer after. Keyed by user and key. The use
 * case that claims, completes and replays answers is {@code application.idempotency}; the entity
 * lives down here, beside its port, so the JPA adapter in {@code persistence} can store it.
 */
@Entity
@Table(name = "DY_IDEMPOTENCY")
public class IdempotentAnswer {

    @Id
    @Column(length = 420)
    private String id;

    @Column(name = "REQUEST_HASH", nullable = false, length = 64)
    private String requestHash;

    private Integer status;

    @Column(length = 32000)
    private String body;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    /** The control-plane process that claimed the key (null on claims older than the column). */
    @Column(name = "CLAIMED_BY", length = 100)
    private String claimedBy;

    protected IdempotentAnswer() {
        // JPA
    }

    public IdempotentAnswer(String id, String requestHash, Instant createdAt) {
        this(id, requestHash, createdAt, null);
    }

    public IdempotentAnswer(String id, String requestHash, Instant createdAt, String claimedBy) {
        this.id = id;
        this.requestHash = requestHash;
        this.createdAt = createdAt;
        this.claimedBy = claimedBy;
    }

    public String claimedBy() {
        return claimedBy;
    }

    public void complete(int answerStatus, String answerBody) {
        this.status = answerStatus;
        this.body = answerBody;
    }

    public String requestHash() {
        return requestHash;
    }

    public Integer status() {
        return status;
    }

    public String body() {
        return body;
    }

    public boolean completed() {
        return status != null;
    }
}
