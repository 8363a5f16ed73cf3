package dev.dockyard.workspace;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * A snapshot of a runtime's sandbox: its file system outside the workspace as a committed image
 * and its workspace as a volume copy, both on {@code node}, owned by a user and counted against
 * the user's snapshot quota. Processes are not part of it: a runtime started from it boots anew.
 */
@Entity
@Table(name = "DY_SNAPSHOT", indexes = @Index(name = "DY_SNAPSHOT_USER", columnList = "USER_ID"))
public class Snapshot {

    @Id
    @Column(length = 40)
    private String id;

    @Column(name = "USER_ID", nullable = false, length = 200)
    private String userId;

    @Column(name = "NAME", nullable = false, length = 200)
    private String name;

    @Column(name = "RUNTIME_ID", nullable = false, length = 40)
    private String runtimeId;

    @Column(name = "NODE", length = 63)
    private String node;

    @Column(name = "IMAGE", nullable = false, length = 300)
    private String image;

    @Column(name = "VOLUME", nullable = false, length = 200)
    private String volume;

    @Column(name = "SIZE_BYTES")
    private long sizeBytes;

    @Column(name = "DISK_MB")
    private int diskMb;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    protected Snapshot() {
        // JPA
    }

    public Snapshot(String id, String userId, String name, String runtimeId, String node, String image, String volume,
                    long sizeBytes, int diskMb, Instant createdAt) {
        this.id = id;
        this.userId = userId;
        this.name = name;
        this.runtimeId = runtimeId;
        this.node = node;
        this.image = image;
        this.volume = volume;
        this.sizeBytes = sizeBytes;
        this.diskMb = diskMb;
        this.createdAt = createdAt;
    }

    public String id() {
        return id;
    }

    public String userId() {
        return userId;
    }

    public String name() {
        return name;
    }

    public String runtimeId() {
        return runtimeId;
    }

    public String node() {
        return node;
    }

    public String image() {
        return image;
    }

    public String volume() {
        return volume;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public int diskMb() {
        return diskMb;
    }

    public Instant createdAt() {
        return createdAt;
    }
}
