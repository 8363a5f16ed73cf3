package dev.dockyard.workspace;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Duration;
import java.time.Instant;

/**
 * A workspace kept after its runtime was deleted ({@code keepWorkspace=true}): a labelled volume
 * on a backend node, owned by a user. The owner is recorded here and not only in labels, because
 * volumes exist before they have a user (a warm pool's sandboxes) and labels cannot change.
 *
 * <p>{@code attachedRuntime} is the runtime that mounts it now (one at a time), or a claim
 * {@code pending-…} held while such a runtime is being registered; {@code attachedAt} dates it, so
 * a claim whose provision never finished expires.
 */
@Entity
@Table(name = "DY_WORKSPACE", indexes = @Index(name = "DY_WORKSPACE_USER", columnList = "USER_ID"))
public class KeptWorkspace {

    /** A holder that is a claim, not a runtime id. */
    public static final String CLAIM_PREFIX = "pending-";

    /** A claim older than this is stale: the provision holding it died before recording its runtime. */
    public static final Duration CLAIM_EXPIRES = Duration.ofMinutes(2);

    @Id
    @Column(length = 40)
    private String id;

    @Column(name = "USER_ID", nullable = false, length = 200)
    private String userId;

    @Column(name = "VOLUME", nullable = false, length = 200)
    private String volume;

    @Column(name = "NODE", length = 63)
    private String node;

    @Column(name = "SIZE_BYTES")
    private Long sizeBytes;

    @Column(name = "DISK_MB")
    private Integer diskMb;

    @Column(name = "SOURCE_RUNTIME", length = 40)
    private String sourceRuntime;

    @Column(name = "ATTACHED_RUNTIME", length = 60)
    private String attachedRuntime;

    @Column(name = "ATTACHED_AT")
    private Instant attachedAt;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Version
    private long version;

    protected KeptWorkspace() {
        // JPA
    }

    public KeptWorkspace(String id, String userId, String volume, String node, String sourceRuntime, Instant now) {
        this.id = id;
        this.userId = userId;
        this.volume = volume;
        this.node = node;
        this.sourceRuntime = sourceRuntime;
        this.createdAt = now;
    }

    public void measured(Long bytes, Integer mb) {
        this.sizeBytes = bytes == null || bytes < 0 ? null : bytes;
        this.diskMb = mb == null || mb <= 0 ? null : mb;
    }

    public void attach(String runtimeOrClaim, Instant now) {
        this.attachedRuntime = runtimeOrClaim;
        this.attachedAt = runtimeOrClaim == null ? null : now;
    }

    public String id() {
        return id;
    }

    public String userId() {
        return userId;
    }

    public String volume() {
        return volume;
    }

    public String node() {
        return node;
    }

    public Long sizeBytes() {
        return sizeBytes;
    }

    public Integer diskMb() {
        return diskMb;
    }

    public String sourceRuntime() {
        return sourceRuntime;
    }

    public String attachedRuntime() {
        return attachedRuntime;
    }

    public Instant attachedAt() {
        return attachedAt;
    }

    public Instant createdAt() {
        return createdAt;
    }
}
