package dev.dockyard.executor.envd;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import java.util.Map;

/**
 * An error of the Connect protocol: a code name ({@code not_found}, {@code invalid_argument}, ...)
 * and a message. A unary call answers it with the code's HTTP status and this JSON as the body; a
 * streaming call puts the same JSON in its end-stream envelope under HTTP 200, which is what
 * connect-go does and what the SDKs parse (a non-200 stream answer is never parsed).
 */
public final class ConnectError extends RuntimeException {

    /** The Connect specification's code to HTTP status mapping. */
    private static final Map<String, Integer> STATUS = Map.ofEntries(Map.entry("canceled", 499),
            Map.entry("unknown", 500), Map.entry("invalid_argument", 400), Map.entry("deadline_exceeded", 504),
            Map.entry("not_found", 404), Map.entry("already_exists", 409), Map.entry("permission_denied", 403),
            Map.entry("resource_exhausted", 429), Map.entry("failed_precondition", 400), Map.entry("aborted", 409),
            Map.entry("out_of_range", 400), Map.entry("unimplemented", 501), Map.entry("internal", 500),
            Map.entry("unavailable", 503), Map.entry("data_loss", 500), Map.entry("unauthenticated", 401));

    private final String code;

    public ConnectError(String code, String message) {
        super(message);
        if (!STATUS.containsKey(code)) {
            throw new IllegalArgumentException("not a Connect code: " + code);
        }
        this.code = code;
    }

    public static ConnectError notFound(String message) {
        return new ConnectError("not_found", message);
    }

    public static ConnectError invalidArgument(String message) {
        return new ConnectError("invalid_argument", message);
    }

    public static ConnectError internal(String message) {
        return new ConnectError("internal", message);
    }

    public String code() {
        return code;
    }

    public int httpStatus() {
        return STATUS.get(code);
    }

    /** {@code {"code": "...", "message": "..."}}: a unary error body, and the end-stream's {@code error}. */
    public JsonObject toJson() {
        return Jsonp.createObjectBuilder().add("code", code).add("message", getMessage()).build();
    }
}
