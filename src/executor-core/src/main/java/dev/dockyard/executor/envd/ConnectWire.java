package dev.dockyard.executor.envd;

import dev.dockyard.executor.Reply;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Connect protocol's JSON wire, as E2B's SDKs speak it to envd: unary messages are plain JSON
 * bodies; a server-streaming call sends one envelope ({@code [flags][length, 4 bytes big-endian]
 * [JSON]}) and receives one envelope per message, then an end-stream envelope (flags {@code 0x02})
 * holding {@code {}} or {@code {"error": {...}}}. Messages are protobuf's canonical JSON: both the
 * JSON names and the proto names are read, unknown fields are ignored, and nothing written here
 * is ever a JSON null (a null on a oneof member breaks the SDK's decoding).
 */
public final class ConnectWire {

    /** The content type of a streaming call, both ways. */
    public static final String STREAM_TYPE = "application/connect+json";
    /** The largest request message read: envd's requests are small (paths, commands, stdin). */
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
    private static final int END_STREAM = 0x02;

    private ConnectWire() {
    }

    /**
     * One envelope of a streamed answer as a client reads it (the control plane reading a sandbox's
     * envd): a message, or the end of the stream, whose message is {@code {}} or holds the call's
     * {@code error}.
     */
    public record Envelope(boolean end, JsonObject message) {

        /** The end-stream's error ({@code {"code", "message"}}), if this is an end that carries one. */
        public Optional<JsonObject> error() {
            JsonValue error = end ? message.get("error") : null;
            return error instanceof JsonObject object ? Optional.of(object) : Optional.empty();
        }
    }

    /**
     * The next envelope of a streamed answer, or empty where the body ends (a stream cut short has
     * no end-stream envelope); IOException for a malformed one.
     */
    public static Optional<Envelope> next(InputStream body) throws IOException {
        byte[] head = body.readNBytes(5);
        if (head.length == 0) {
            return Optional.empty();
        }
        if (head.length < 5 || (head[0] & 0x01) != 0) {
            throw new IOException("not a Connect envelope");
        }
        int length = ByteBuffer.wrap(head, 1, 4).getInt();
        if (length < 0 || length > MAX_MESSAGE_BYTES) {
            throw new IOException("a Connect envelope of " + length + " bytes");
        }
        byte[] message = body.readNBytes(length);
        if (message.length < length) {
            throw new IOException("a Connect envelope ended early");
        }
        try {
            return Optional.of(new Envelope((head[0] & END_STREAM) != 0, parse(message)));
        } catch (ConnectError e) {
            throw new IOException("a Connect envelope holds no JSON object", e);
        }
    }

    /** The bytes of a streaming request: its one message in one envelope. */
    public static byte[] request(JsonObject message) {
        byte[] json = message.toString().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + json.length).put((byte) 0).putInt(json.length).put(json).array();
    }

    /** A unary request's body as a message; an empty body is the empty message. */
    static JsonObject readUnary(InputStream body) throws IOException {
        return parse(body == null ? new byte[0] : readBounded(body, MAX_MESSAGE_BYTES));
    }

    /** The one envelope of a streaming request, its message parsed. */
    static JsonObject readEnvelope(InputStream body) throws IOException {
        byte[] head = body == null ? new byte[0] : body.readNBytes(5);
        if (head.length < 5) {
            throw ConnectError.invalidArgument("the request must be one Connect envelope");
        }
        if ((head[0] & 0x01) != 0) {
            throw ConnectError.invalidArgument("compressed envelopes are not supported");
        }
        int length = ByteBuffer.wrap(head, 1, 4).getInt();
        if (length < 0 || length > MAX_MESSAGE_BYTES) {
            throw new ConnectError("resource_exhausted", "the request message is too large");
        }
        byte[] message = body.readNBytes(length);
        if (message.length < length) {
            throw ConnectError.invalidArgument("the request envelope ended early");
        }
        return parse(message);
    }

    private static byte[] readBounded(InputStream body, int limit) throws IOException {
        byte[] bytes = body.readNBytes(limit + 1);
        if (bytes.length > limit) {
            throw new ConnectError("resource_exhausted", "the request message is too large");
        }
        return bytes;
    }

    private static JsonObject parse(byte[] message) {
        if (message.length == 0) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        try (JsonReader reader = Jsonp.createReader(new ByteArrayInputStream(message))) {
            return reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw ConnectError.invalidArgument("the request message is not a JSON object");
        }
    }

    /** Writes one message envelope and flushes it, so the client has it at once. */
    static void writeMessage(OutputStream out, JsonObject message) throws IOException {
        writeEnvelope(out, 0, message);
    }

    /** Writes the end-stream envelope: {@code {}} on success, else {@code {"error": {...}}}. */
    static void writeEnd(OutputStream out, ConnectError error) throws IOException {
        writeEnvelope(out, END_STREAM, error == null ? JsonValue.EMPTY_JSON_OBJECT
                : Jsonp.createObjectBuilder().add("error", error.toJson()).build());
    }

    private static void writeEnvelope(OutputStream out, int flags, JsonObject message) throws IOException {
        byte[] envelope = request(message);
        envelope[0] = (byte) flags;
        out.write(envelope);
        out.flush();
    }

    /** A unary answer: the message with 200, or the error with its code's status. */
    static Reply unary(JsonObject message) {
        return Reply.json(200, message);
    }

    static Reply unaryError(ConnectError error) {
        return Reply.json(error.httpStatus(), error.toJson());
    }

    /** A streaming answer whose outcome is known before any message: 200 and the end-stream alone. */
    static Reply streamError(ConnectError error) {
        return Reply.streamed(STREAM_TYPE, out -> writeEnd(out, error), Map.of());
    }

    // ---- reading fields by JSON name or proto name ----

    static JsonValue field(JsonObject message, String jsonName, String protoName) {
        JsonValue value = message.get(jsonName);
        if ((value == null || value == JsonValue.NULL) && protoName != null) {
            value = message.get(protoName);
        }
        return value == JsonValue.NULL ? null : value;
    }

    static String string(JsonObject message, String name) {
        return string(message, name, null);
    }

    static String string(JsonObject message, String jsonName, String protoName) {
        JsonValue value = field(message, jsonName, protoName);
        if (value == null) {
            return null;
        }
        if (value instanceof JsonString text) {
            return text.getString();
        }
        throw ConnectError.invalidArgument("'" + jsonName + "' must be a string");
    }

    static JsonObject object(JsonObject message, String jsonName, String protoName) {
        JsonValue value = field(message, jsonName, protoName);
        if (value == null) {
            return null;
        }
        if (value instanceof JsonObject object) {
            return object;
        }
        throw ConnectError.invalidArgument("'" + jsonName + "' must be an object");
    }

    /** A presence-tracked boolean: null when absent. */
    static Boolean bool(JsonObject message, String jsonName, String protoName) {
        JsonValue value = field(message, jsonName, protoName);
        if (value == null) {
            return null;
        }
        if (value == JsonValue.TRUE || value == JsonValue.FALSE) {
            return value == JsonValue.TRUE;
        }
        throw ConnectError.invalidArgument("'" + jsonName + "' must be a boolean");
    }

    static boolean flag(JsonObject message, String jsonName, String protoName) {
        return Boolean.TRUE.equals(bool(message, jsonName, protoName));
    }

    /** An integer field: a JSON number or, as protobuf JSON allows, a decimal string; 0 when absent. */
    static long integer(JsonObject message, String jsonName, String protoName) {
        JsonValue value = field(message, jsonName, protoName);
        try {
            if (value == null) {
                return 0;
            }
            if (value instanceof JsonNumber number) {
                return number.longValueExact();
            }
            if (value instanceof JsonString text) {
                return Long.parseLong(text.getString());
            }
        } catch (ArithmeticException | NumberFormatException e) {
            // answered below
        }
        throw ConnectError.invalidArgument("'" + jsonName + "' must be an integer");
    }

    static List<String> strings(JsonObject message, String name) {
        JsonValue value = field(message, name, null);
        List<String> values = new ArrayList<>();
        if (value == null) {
            return values;
        }
        if (!(value instanceof JsonArray array)) {
            throw ConnectError.invalidArgument("'" + name + "' must be an array of strings");
        }
        for (JsonValue item : array) {
            if (!(item instanceof JsonString text)) {
                throw ConnectError.invalidArgument("'" + name + "' must be an array of strings");
            }
            values.add(text.getString());
        }
        return values;
    }

    static Map<String, String> stringMap(JsonObject message, String name) {
        JsonObject object = object(message, name, null);
        Map<String, String> values = new LinkedHashMap<>();
        if (object == null) {
            return values;
        }
        object.forEach((key, value) -> {
            if (!(value instanceof JsonString text)) {
                throw ConnectError.invalidArgument("'" + name + "' must map strings to strings");
            }
            values.put(key, text.getString());
        });
        return values;
    }

    /** A bytes field: standard base64, padded or not (URL-safe accepted too, as protobuf JSON does). */
    static byte[] bytes(JsonObject message, String name) {
        String text = string(message, name, null);
        if (text == null) {
            return null;
        }
        try {
            return (text.indexOf('-') >= 0 || text.indexOf('_') >= 0 ? Base64.getUrlDecoder() : Base64.getDecoder())
                    .decode(text);
        } catch (IllegalArgumentException e) {
            throw ConnectError.invalidArgument("'" + name + "' must be base64");
        }
    }

    /** An enum field, by name or number; {@code names[i]} is the name of value {@code numbers[i]}. */
    static int enumValue(JsonObject message, String name, String[] names, int[] numbers) {
        JsonValue value = field(message, name, null);
        if (value == null) {
            return 0;
        }
        if (value instanceof JsonNumber number) {
            return number.intValue();
        }
        if (value instanceof JsonString text) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(text.getString())) {
                    return numbers[i];
                }
            }
        }
        throw ConnectError.invalidArgument("'" + name + "' has an unknown value " + value);
    }
}
