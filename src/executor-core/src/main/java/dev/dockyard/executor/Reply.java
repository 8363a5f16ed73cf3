package dev.dockyard.executor;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One answer of the executor protocol, independent of the HTTP server that sends it: the executor
 * WAR maps it to a JAX-RS response, the control plane's in-process face (the {@code cli} backend)
 * to its own loopback server. {@code body} is a {@link JsonValue} (which the faces write with
 * {@code JsonBytes}), a {@link String} or UTF-8 {@code byte[]} already in JSON, a {@link Streamed}
 * body, or null for none.
 */
public record Reply(int status, Object body, String contentType, Map<String, String> headers) {

    public static final String JSON = "application/json";

    /** A body written straight to the client (a zip of files), never held in memory. */
    @FunctionalInterface
    public interface Streamed {
        void writeTo(OutputStream out) throws IOException;
    }

    public Reply {
        headers = Map.copyOf(headers);
    }

    public static Reply json(int status, JsonValue body) {
        return new Reply(status, body, JSON, Map.of());
    }

    /** A JSON body already serialised (a replayed answer of the request ledger). */
    public static Reply jsonText(int status, String body) {
        return new Reply(status, body, JSON, Map.of());
    }

    /** PROTOCOL.md's error shape: {@code {"detail": "..."}}. */
    public static Reply detail(int status, String detail) {
        return json(status, Jsonp.createObjectBuilder().add("detail", detail).build());
    }

    public static Reply noContent(Map<String, String> headers) {
        return new Reply(204, null, null, headers);
    }

    public static Reply streamed(String contentType, Streamed body, Map<String, String> headers) {
        return new Reply(200, body, contentType, new LinkedHashMap<>(headers));
    }
}
