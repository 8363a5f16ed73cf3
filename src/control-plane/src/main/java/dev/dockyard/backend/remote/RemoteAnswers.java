package dev.dockyard.backend.remote;

import dev.dockyard.backend.BackendException;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * What a remote control plane's answers mean here: its JSON read into {@link RemoteRuntime}s,
 * statuses and URLs. An answer that is not what Dockyard's API answers (not JSON, a member missing
 * or of another type, a time that is not one) is a {@link BackendException} naming the node and
 * what was read: a malformed answer never escapes as a NullPointerException or ClassCastException.
 * A runtime's url is taken only on the node's own scheme and host, since its key is sent there.
 */
final class RemoteAnswers {

    private final RemoteNodeConfig settings;

    RemoteAnswers(RemoteNodeConfig settings) {
        this.settings = settings;
    }

    /** The answer's body as a JSON object. */
    JsonObject json(HttpResponse<String> answer) {
        try (var reader = Jsonp.createReader(new StringReader(answer.body()))) {
            return reader.readObject();
        } catch (RuntimeException e) {
            throw new BackendException("remote node '" + settings.node() + "' answered something that is not a "
                    + "JSON object (is " + settings.url() + " a Dockyard control plane?)", e);
        }
    }

    /** A runtime of the remote's {@code /api/v1}: its id and status at least, as Dockyard answers them. */
    RemoteRuntime runtimeOf(JsonValue value) {
        return read("a runtime", () -> {
            JsonObject runtime = value.asJsonObject();
            String createdAt = optionalText(runtime, "createdAt");
            return new RemoteRuntime(text(runtime, "id"), optionalText(runtime, "conversationId"),
                    text(runtime, "status"), optionalText(runtime, "statusMessage"),
                    createdAt == null ? Instant.EPOCH : Instant.parse(createdAt));
        });
    }

    /** A {@code status} event's data ({@code {"status", "message", "at"}}) as the runtime's status. */
    RemoteRuntime statusOf(String id, String data) {
        JsonObject change;
        try (var reader = Jsonp.createReader(new StringReader(data))) {
            change = reader.readObject();
        } catch (JsonException e) {
            throw new BackendException("remote node '" + settings.node() + "' sent an event of runtime " + id
                    + " that is not JSON", e);
        }
        return read("an event of runtime " + id, () -> new RemoteRuntime(id, null, text(change, "status"),
                optionalText(change, "message"), Instant.EPOCH));
    }

    /**
     * A url the remote gave, taken only on the node's own scheme and host (or a host under it, its
     * subdomain mode): the local control plane sends the runtime's key there, so a remote (or
     * anyone between) may not point it at another machine or downgrade it to plain http.
     */
    URI serviceUrl(String url) {
        URI parsed;
        try {
            parsed = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new BackendException("remote node '" + settings.node() + "' gave a runtime url that is no URL");
        }
        String host = parsed.getHost() == null ? "" : parsed.getHost().toLowerCase(Locale.ROOT);
        String nodeHost = settings.url().getHost().toLowerCase(Locale.ROOT);
        if (!settings.url().getScheme().equalsIgnoreCase(parsed.getScheme())
                || !(host.equals(nodeHost) || host.endsWith("." + nodeHost))) {
            throw new BackendException("remote node '" + settings.node() + "' gave a runtime url on another scheme or "
                    + "host than its own (" + parsed.getScheme() + "://" + host + "): only " + settings.url().getScheme()
                    + "://" + nodeHost + " is trusted with the runtime's key");
        }
        return parsed;
    }

    /**
     * Reads {@code what} out of an answer; an answer that is not shaped as Dockyard's is a
     * {@link BackendException} naming the node and what was read, not a NullPointerException or
     * ClassCastException (or a time that does not parse) escaping to the caller.
     */
    <T> T read(String what, Supplier<T> reading) {
        try {
            return reading.get();
        } catch (NullPointerException | ClassCastException | DateTimeParseException | JsonException
                 | IllegalArgumentException e) {
            throw new BackendException("remote node '" + settings.node() + "' answered " + what + " that is not "
                    + "as Dockyard's API answers it (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); is " + settings.url()
                    + " a Dockyard control plane of this version?", e);
        }
    }

    /** A member that must be a non-empty string. */
    static String text(JsonObject object, String name) {
        JsonValue value = object.get(name);
        if (!(value instanceof JsonString string) || string.getString().isEmpty()) {
            throw new IllegalArgumentException("'" + name + "' is " + (value == null ? "missing" : "not a non-empty string"));
        }
        return string.getString();
    }

    /** A member that is a string or absent (null: absent or JSON null). */
    static String optionalText(JsonObject object, String name) {
        JsonValue value = object.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(value instanceof JsonString string)) {
            throw new IllegalArgumentException("'" + name + "' is not a string");
        }
        return string.getString();
    }
}
