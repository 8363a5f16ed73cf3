package dev.dockyard.proxy;

import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.persistence.DatabaseOutage;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The proxy's own answers: FastAPI's shape, {@code {"detail": "..."}}, which OpenHands clients read;
 * on E2B's envd routes E2B's own, {@code {"code": status, "message": "..."}} (and the sandbox's id on
 * a 502, as E2B's proxy sends it).
 */
final class ProxyErrors {

    private ProxyErrors() {
    }

    static void write(HttpServletResponse response, int status, String detail) throws IOException {
        write(response, new Admission.Refused(status, detail));
    }

    /** A refusal of an exchange under way, in E2B's shape when it came by E2B's envd routes. */
    static void write(HttpServletResponse response, ProxyExchange exchange, Admission.Refused refused)
            throws IOException {
        if (exchange.e2b()) {
            writeE2b(response, refused, null);
        } else {
            write(response, refused);
        }
    }

    /** A refusal, with its {@code Retry-After} if it asks for one. */
    static void write(HttpServletResponse response, Admission.Refused refused) throws IOException {
        send(response, refused.status(), Jsonp.createObjectBuilder().add("detail", refused.detail()).build(),
                refused.retryAfterSeconds());
    }

    /**
     * A look-up that failed: {@code 503} with {@code Retry-After} while the database does not
     * answer (the same request succeeds once it does), {@code 500} for anything else.
     */
    static void lookUpFailed(HttpServletResponse response, boolean outage, boolean e2b, String detail)
            throws IOException {
        int status = outage ? 503 : 500;
        String said = outage ? DatabaseOutage.ANSWER : detail;
        JsonObject body = e2b ? Jsonp.createObjectBuilder().add("message", said).add("code", status).build()
                : Jsonp.createObjectBuilder().add("detail", said).build();
        send(response, status, body, outage ? DatabaseOutage.RETRY_AFTER_SECONDS : 0);
    }

    /** An answer on E2B's envd routes. */
    static void writeE2b(HttpServletResponse response, int status, String sandboxId, String message)
            throws IOException {
        writeE2b(response, new Admission.Refused(status, message), sandboxId);
    }

    /** A refusal on E2B's envd routes, with its {@code Retry-After} if it asks for one. */
    static void writeE2b(HttpServletResponse response, Admission.Refused refused, String sandboxId)
            throws IOException {
        JsonObjectBuilder body = Jsonp.createObjectBuilder();
        if (refused.status() == 502 && sandboxId != null) {
            body.add("sandboxId", sandboxId);
        }
        send(response, refused.status(), body.add("message", refused.detail()).add("code", refused.status()).build(),
                refused.retryAfterSeconds());
    }

    private static void send(HttpServletResponse response, int status, JsonObject json, int retryAfterSeconds)
            throws IOException {
        if (response.isCommitted()) {
            return; // the service's answer is under way: all that is left is to cut it short
        }
        response.reset();
        response.setStatus(status);
        response.setContentType("application/json");
        response.setHeader("X-Content-Type-Options", "nosniff");
        if (retryAfterSeconds > 0) {
            response.setHeader("Retry-After", String.valueOf(retryAfterSeconds));
        }
        response.setCharacterEncoding("UTF-8");
        byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
