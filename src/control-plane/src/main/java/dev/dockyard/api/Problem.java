package dev.dockyard.api;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An RFC 9457 problem: a stable {@code type} URI per kind of error, a title, the HTTP status, a
 * detail for this occurrence, and extension members (e.g. the conflicting {@code runtime}).
 * Never a stack trace.
 */
public final class Problem {

    public static final MediaType MEDIA_TYPE = new MediaType("application", "problem+json");
    private static final String TYPE_BASE = "https://dockyard.dev/problems/";
    /** RFC 9457's members, which no extension may reuse. */
    public static final Set<String> STANDARD_MEMBERS = Set.of("type", "title", "status", "detail", "instance");

    /** Every kind of error the API reports; the type URI of each is part of the contract. */
    public enum Kind {
        VALIDATION(400, "validation", "Invalid request"),
        INVALID_ACTION(400, "invalid-action", "Invalid action"),
        UNAUTHORIZED(401, "unauthorized", "Not authenticated"),
        FORBIDDEN(403, "forbidden", "Not allowed"),
        CONFLICT(409, "conflict", "Conflicts with what exists"),
        NOT_FOUND(404, "not-found", "Not found"),
        METHOD_NOT_ALLOWED(405, "method-not-allowed", "Method not allowed"),
        NOT_ACCEPTABLE(406, "not-acceptable", "Not acceptable"),
        UNSUPPORTED_MEDIA_TYPE(415, "unsupported-media-type", "Unsupported media type"),
        PAYLOAD_TOO_LARGE(413, "payload-too-large", "The request body is too large"),
        BAD_REQUEST(400, "bad-request", "Malformed request"),
        REQUEST_TIMEOUT(408, "request-timeout", "The request was not received in time"),
        LENGTH_REQUIRED(411, "length-required", "Length required"),
        URI_TOO_LONG(414, "uri-too-long", "The request URI is too long"),
        HEADERS_TOO_LARGE(431, "headers-too-large", "The request's headers are too large"),
        SERVICE_UNAVAILABLE(503, "service-unavailable", "The control plane is not available"),
        CONVERSATION_BUSY(409, "conversation-has-runtime", "The conversation already has a live runtime"),
        RUNTIME_NOT_READY(409, "runtime-not-ready", "The runtime is not ready"),
        ACTION_BLOCKED(403, "action-blocked", "The runtime's security policy blocks this action"),
        CONFIRMATION_REQUIRED(409, "confirmation-required", "The action needs confirmation"),
        RUNTIME_MIGRATING(409, "runtime-migrating", "The runtime is being migrated to another node"),
        MIGRATION_REFUSED(409, "migration-refused", "The runtime cannot be migrated now"),
        IDEMPOTENCY_KEY_REUSED(422, "idempotency-key-reused", "Idempotency-Key already used for another request"),
        REQUEST_ID_REUSED(409, "request-id-reused", "X-Request-ID already used for another action"),
        QUOTA_EXCEEDED(429, "quota-exceeded", "Quota exceeded"),
        NO_CAPACITY(429, "no-capacity", "No backend node has capacity for the runtime"),
        NODE_UNAVAILABLE(503, "node-unavailable", "The backend node is unavailable"),
        DATABASE_UNAVAILABLE(503, "database-unavailable", "The control plane's database is not answering"),
        NOT_IMPLEMENTED(501, "not-implemented", "Not implemented yet"),
        EXECUTOR_FAILED(502, "executor-failed", "The sandbox's executor failed"),
        EXECUTOR_UNAVAILABLE(503, "executor-unavailable", "The sandbox's executor is not answering"),
        BACKEND_FAILED(502, "backend-failed", "The sandbox backend failed"),
        INTERNAL(500, "internal", "Internal error");

        private final int status;
        private final String slug;
        private final String title;

        Kind(int status, String slug, String title) {
            this.status = status;
            this.slug = slug;
            this.title = title;
        }

        public String type() {
            return TYPE_BASE + slug;
        }

        public int status() {
            return status;
        }

        /** The kind an HTTP error code the server itself gave stands for (a servlet error page). */
        public static Kind forStatus(int status) {
            for (Kind kind : List.of(BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, METHOD_NOT_ALLOWED,
                    NOT_ACCEPTABLE, REQUEST_TIMEOUT, CONFLICT, LENGTH_REQUIRED, PAYLOAD_TOO_LARGE, URI_TOO_LONG,
                    UNSUPPORTED_MEDIA_TYPE, HEADERS_TOO_LARGE, NOT_IMPLEMENTED, SERVICE_UNAVAILABLE)) {
                if (kind.status == status) {
                    return kind;
                }
            }
            return status >= 400 && status < 500 ? BAD_REQUEST : INTERNAL;
        }
    }

    private final Kind kind;
    private final String detail;
    private final Map<String, JsonValue> extensions = new LinkedHashMap<>();

    private Problem(Kind kind, String detail) {
        this.kind = kind;
        this.detail = detail;
    }

    public static Problem of(Kind kind, String detail) {
        return new Problem(kind, detail);
    }

    /**
     * Adds an extension member. RFC 9457's own members ({@code status} is the HTTP code, a number)
     * cannot be overridden: e.g. a runtime's status goes in {@code runtimeStatus}.
     */
    public Problem with(String member, JsonValue value) {
        if (STANDARD_MEMBERS.contains(member)) {
            throw new IllegalArgumentException("'" + member + "' is an RFC 9457 member, not an extension");
        }
        extensions.put(member, value);
        return this;
    }

    public Kind kind() {
        return kind;
    }

    public String detail() {
        return detail;
    }

    public Response toResponse() {
        return Response.status(kind.status).type(MEDIA_TYPE).entity(toJson().toString()).build();
    }

    /** The problem document itself. */
    public JsonObject toJson() {
        JsonObjectBuilder body = Jsonp.createObjectBuilder()
                .add("type", kind.type())
                .add("title", kind.title)
                .add("status", kind.status);
        if (detail != null) {
            body.add("detail", detail);
        }
        extensions.forEach(body::add);
        return body.build();
    }

    /** Thrown anywhere in a request to answer with this problem. */
    public ProblemException toException() {
        return new ProblemException(this);
    }

    public static class ProblemException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Problem problem;

        ProblemException(Problem problem) {
            super(problem.detail, null, false, false);
            this.problem = problem;
        }

        public Problem problem() {
            return problem;
        }
    }
}
