package dev.dockyard.pool;

import dev.dockyard.secrets.SealedString;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One warm sandbox of a pool. Recorded BOOTING before its container is created (so a control
 * plane killed while booting it finds the intent and removes what was made), READY once its
 * executor answers {@code /ready}. The row is deleted when a runtime claims the sandbox (the
 * runtime's own row takes over, under the same id) or when the sandbox is drained.
 */
@Entity
@Table(name = "DY_POOL_MEMBER", indexes = @Index(name = "DY_POOL_MEMBER_POOL", columnList = "POOL"))
public class PoolMember {

    public enum Status { BOOTING, READY }

    /** The id of the runtime that will claim it: its container is "dockyard-" + id. */
    @Id
    @Column(length = 40)
    private String id;

    @Column(name = "POOL", nullable = false, length = 63)
    private String pool;

    @Column(name = "NODE", nullable = false, length = 63)
    private String node;

    @Column(name = "CONTROL_PLANE", nullable = false, length = 100)
    private String controlPlane;

    /** {@link PoolDefinition#shape()} as it was when the member was booted. */
    @Column(name = "SHAPE", nullable = false, length = 1200)
    private String shape;

    @Enumerated(EnumType.STRING)
    @Column(name = "STATUS", nullable = false, length = 16)
    private Status status;

    /** The key its executor holds; the claiming runtime's session key. */
    @Column(name = "SESSION_KEY", nullable = false, length = 256)
    @Convert(converter = SealedString.class)
    private String sessionKey;

    /** The runtime image it runs (a tag) and that image's id: a rebuilt image drains the member. */
    @Column(name = "RUNTIME_IMAGE", length = 300)
    private String runtimeImage;

    @Column(name = "IMAGE_ID", length = 4000)
    private String imageId;

    @Column(name = "CONTAINER_ID", length = 100)
    private String containerId;

    @Column(name = "EXECUTOR_URL", length = 200)
    private String executorUrl;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "READY_AT")
    private Instant readyAt;

    protected PoolMember() {
        // JPA
    }

    public PoolMember(String id, String pool, String node, String controlPlane, String shape, String sessionKey,
                      Instant now) {
        this.id = id;
        this.pool = pool;
        this.node = node;
        this.controlPlane = controlPlane;
        this.shape = shape;
        this.sessionKey = sessionKey;
        this.status = Status.BOOTING;
        this.createdAt = now;
    }

    void ready(String newContainerId, String newExecutorUrl, String newRuntimeImage, String newImageId, Instant now) {
        this.containerId = newContainerId;
        this.executorUrl = newExecutorUrl;
        this.runtimeImage = newRuntimeImage;
        this.imageId = newImageId;
        this.status = Status.READY;
        this.readyAt = now;
    }

    public String containerName() {
        return "dockyard-" + id;
    }

    public String id() {
        return id;
    }

    public String pool() {
        return pool;
    }

    public String node() {
        return node;
    }

    public String controlPlane() {
        return controlPlane;
    }

    public String shape() {
        return shape;
    }

    public Status status() {
        return status;
    }

    public String sessionKey() {
        return sessionKey;
    }

    public String runtimeImage() {
        return runtimeImage;
    }

    public String imageId() {
        return imageId;
    }

    public String containerId() {
        return containerId;
    }

    public String executorUrl() {
        return executorUrl;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant readyAt() {
        return readyAt;
    }

    @Override
    public String toString() {
        // never the key
        return "PoolMember[" + id + ", pool=" + pool + ", " + status + "]";
    }
}
