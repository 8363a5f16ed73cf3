package dev.dockyard.runtime;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** One transition in a runtime's history, kept after the runtime is gone. */
@Entity
@Table(name = "DY_STATUS_CHANGE", indexes = @Index(name = "DY_STATUS_CHANGE_RT", columnList = "RUNTIME_ID,CHANGED_AT"))
public class StatusChange {

    @Id
    @Column(length = 40)
    private String id;

    @Column(name = "RUNTIME_ID", nullable = false, length = 40)
    private String runtimeId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 32)
    private RuntimeStatus status;

    @Column(length = 2000)
    private String message;

    @Column(name = "CHANGED_AT", nullable = false)
    private Instant at;

    protected StatusChange() {
        // JPA
    }

    public StatusChange(String runtimeId, RuntimeStatus status, String message, Instant at) {
        this.id = UUID.randomUUID().toString();
        this.runtimeId = runtimeId;
        this.status = status;
        this.message = SandboxRuntime.clip(message);
        this.at = at;
    }

    public String id() {
        return id;
    }

    public String runtimeId() {
        return runtimeId;
    }

    public RuntimeStatus status() {
        return status;
    }

    public String message() {
        return message;
    }

    public Instant at() {
        return at;
    }
}
