package dev.dockyard.cluster;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * A named lease: {@code holder} may act on it until {@code expiresAt}, renewing before then; once
 * expired, any instance may take it. {@code acquiredAt} is when the current holder took it.
 */
@Entity
@Table(name = "DY_LEASE")
public class Lease {

    @Id
    @Column(name = "NAME", length = 200)
    private String name;

    @Column(name = "HOLDER", nullable = false, length = 100)
    private String holder;

    @Column(name = "ACQUIRED_AT", nullable = false)
    private Instant acquiredAt;

    @Column(name = "RENEWED_AT", nullable = false)
    private Instant renewedAt;

    @Column(name = "EXPIRES_AT", nullable = false)
    private Instant expiresAt;

    protected Lease() {
    }

    public Lease(String name, String holder, Instant now, Instant expiresAt) {
        this.name = name;
        this.holder = holder;
        this.acquiredAt = now;
        this.renewedAt = now;
        this.expiresAt = expiresAt;
    }

    public String name() {
        return name;
    }

    public String holder() {
        return holder;
    }

    public Instant acquiredAt() {
        return acquiredAt;
    }

    public Instant renewedAt() {
        return renewedAt;
    }

    public Instant expiresAt() {
        return expiresAt;
    }
}
