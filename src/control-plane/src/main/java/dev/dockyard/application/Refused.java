package dev.dockyard.application;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.EngineUnreachableException;
import jakarta.json.JsonValue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A use case said no: why, in words for the caller, plus members the answer carries (e.g. the
 * {@code maximum} an action's timeout may have). Each reason is answered as the API's problem
 * kind of the same name.
 */
public class Refused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The reasons, named as the API's problem kinds they become. */
    public enum Reason {
        VALIDATION, INVALID_ACTION, NOT_FOUND, CONVERSATION_BUSY, RUNTIME_NOT_READY, ACTION_BLOCKED,
        CONFIRMATION_REQUIRED, RUNTIME_MIGRATING, MIGRATION_REFUSED, NOT_IMPLEMENTED, IDEMPOTENCY_KEY_REUSED, REQUEST_ID_REUSED, EXECUTOR_FAILED,
        EXECUTOR_UNAVAILABLE,
        BACKEND_FAILED, NODE_UNAVAILABLE, INTERNAL, FORBIDDEN, CONFLICT, QUOTA_EXCEEDED, PAYLOAD_TOO_LARGE
    }

    private static final Set<String> RFC_9457_MEMBERS = Set.of("type", "title", "status", "detail", "instance");

    private final Reason reason;
    private final transient Map<String, JsonValue> members = new LinkedHashMap<>();
    private int retryAfterSeconds;

    public Refused(Reason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    /** Adds a member; never one of RFC 9457's own (a runtime's status is {@code runtimeStatus}). */
    public Refused with(String member, JsonValue value) {
        if (RFC_9457_MEMBERS.contains(member)) {
            throw new IllegalArgumentException("'" + member + "' is an RFC 9457 member, not an extension");
        }
        members.put(member, value);
        return this;
    }

    /**
     * A backend failure as the caller should hear it: an engine that does not answer at all is the
     * node unavailable (503, come back in a few seconds), anything else the backend failing (502).
     */
    public static Refused ofBackend(BackendException e, String detail) {
        if (e instanceof EngineUnreachableException) {
            return new Refused(Reason.NODE_UNAVAILABLE, detail).retryAfter(EngineUnreachableException.RETRY_AFTER_SECONDS);
        }
        return new Refused(Reason.BACKEND_FAILED, detail);
    }

    /** Asks the caller to come back after this many seconds (the answer's {@code Retry-After}). */
    public Refused retryAfter(int seconds) {
        this.retryAfterSeconds = seconds;
        return this;
    }

    /** 0: no Retry-After. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public Reason reason() {
        return reason;
    }

    public Map<String, JsonValue> members() {
        return members;
    }
}
