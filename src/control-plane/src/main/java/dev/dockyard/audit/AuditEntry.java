package dev.dockyard.audit;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One action as the control plane handled it: who, on which runtime, what kind, how risky, what
 * the policy decided, and how it went. Never the action's text or output: those may hold secrets.
 */
@Entity
@Table(name = "DY_AUDIT", indexes = {@Index(name = "DY_AUDIT_RUNTIME", columnList = "RUNTIME_ID,RECORDED_AT"),
        @Index(name = "DY_AUDIT_USER", columnList = "USER_ID,RECORDED_AT")})
public class AuditEntry {

    /** What the control plane did with the action. */
    public enum Decision { ALLOWED, CONFIRMED, AWAITING_CONFIRMATION, BLOCKED }

    @Id
    @Column(length = 40)
    private String id;

    @Column(name = "RECORDED_AT", nullable = false)
    private Instant at;

    @Column(name = "USER_ID", nullable = false, length = 200)
    private String userId;

    @Column(name = "RUNTIME_ID", nullable = false, length = 40)
    private String runtimeId;

    @Column(name = "ACTION_TYPE", nullable = false, length = 40)
    private String actionType;

    @Column(name = "RISK", nullable = false, length = 10)
    private String risk;

    @Column(name = "REASONS", length = 1000)
    private String reasons;

    @Column(name = "DECISION", nullable = false, length = 30)
    private String decision;

    /** The HTTP status the caller got. */
    @Column(name = "STATUS")
    private int status;

    @Column(name = "EXIT_CODE")
    private Integer exitCode;

    @Column(name = "DURATION_MS")
    private long durationMs;

    @Column(name = "BYTES_OUT")
    private long bytesOut;

    protected AuditEntry() {
        // JPA
    }

    /**
     * A UUID of version 7's layout: the entry's millisecond first, then random bits. Entries are
     * written hundreds per second; with time-ordered keys each insert lands at the end of the
     * primary key's index instead of at a random page of it, and no SecureRandom is drawn (an
     * audit id is a name, not a secret).
     */
    static String timeOrderedId(Instant at) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long millis = at == null ? System.currentTimeMillis() : at.toEpochMilli();
        long high = (millis << 16) | 0x7000L | (random.nextInt() & 0x0FFF);
        long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(high, low).toString();
    }

    public AuditEntry(Instant at, String userId, String runtimeId, String actionType, String risk, String reasons,
                      Decision decision, int status, Integer exitCode, long durationMs, long bytesOut) {
        this.id = timeOrderedId(at);
        this.at = at;
        this.userId = userId;
        this.runtimeId = runtimeId;
        this.actionType = actionType.length() > 40 ? actionType.substring(0, 40) : actionType;
        this.risk = risk;
        this.reasons = reasons.length() > 1000 ? reasons.substring(0, 1000) : reasons;
        this.decision = decision.name();
        this.status = status;
        this.exitCode = exitCode;
        this.durationMs = durationMs;
        this.bytesOut = bytesOut;
    }

    public String id() { return id; }
    public Instant at() { return at; }
    public String userId() { return userId; }
    public String runtimeId() { return runtimeId; }
    public String actionType() { return actionType; }
    public String risk() { return risk; }
    public String reasons() { return reasons; }
    public String decision() { return decision; }
    public int status() { return status; }
    public Integer exitCode() { return exitCode; }
    public long durationMs() { return durationMs; }
    public long bytesOut() { return bytesOut; }
}
