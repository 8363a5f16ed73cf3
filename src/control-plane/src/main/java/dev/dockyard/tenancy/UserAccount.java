package dev.dockyard.tenancy;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * A user and their quota overrides (null: the MP Config default). The row is also the lock that
 * makes a quota check and the new runtime it admits one atomic step.
 */
@Entity
@Table(name = "DY_USER")
public class UserAccount {

    @Id
    @Column(name = "USER_ID", length = 200)
    private String userId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 16)
    private Role role;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "MAX_RUNTIMES")
    private Integer maxRuntimes;

    @Column(name = "MAX_CPUS")
    private Double maxCpus;

    @Column(name = "MAX_MEMORY_MB")
    private Integer maxMemoryMb;

    /** Snapshots the user may keep at once; null: {@code dockyard.quota.max-snapshots}. */
    @Column(name = "MAX_SNAPSHOTS")
    private Integer maxSnapshots;

    /** MB of snapshots the user may keep; null: {@code dockyard.quota.max-snapshot-mb}. */
    @Column(name = "MAX_SNAPSHOT_MB")
    private Integer maxSnapshotMb;

    protected UserAccount() {
        // JPA
    }

    public UserAccount(String userId, Role role, Instant createdAt) {
        this.userId = userId;
        this.role = role;
        this.createdAt = createdAt;
    }

    public String userId() {
        return userId;
    }

    public Role role() {
        return role;
    }

    public void role(Role newRole) {
        this.role = newRole;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Integer maxRuntimes() {
        return maxRuntimes;
    }

    public Double maxCpus() {
        return maxCpus;
    }

    public Integer maxMemoryMb() {
        return maxMemoryMb;
    }

    public Integer maxSnapshots() {
        return maxSnapshots;
    }

    public Integer maxSnapshotMb() {
        return maxSnapshotMb;
    }

    /** Per-user snapshot overrides; null keeps (or returns to) the default. */
    public void snapshotQuota(Integer snapshots, Integer snapshotMb) {
        this.maxSnapshots = snapshots;
        this.maxSnapshotMb = snapshotMb;
    }

    /** Per-user overrides; null keeps (or returns to) the default. */
    public void quota(Integer runtimes, Double cpus, Integer memoryMb) {
        this.maxRuntimes = runtimes;
        this.maxCpus = cpus;
        this.maxMemoryMb = memoryMb;
    }
}
