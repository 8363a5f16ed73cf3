package dev.dockyard.executor.envd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.executor.ExecutorRequests;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A test's Connect client, as E2B's SDK speaks to envd: unary calls are JSON bodies; a streaming
 * call sends one envelope and reads the answer's envelopes one at a time as they arrive (every
 * read bounded by a 20 s socket timeout).
 */
final class ConnectClient {

    /** A unary answer: its status and JSON body. */
    record Answer(int status, String contentType, JsonObject body) {
    }

    /** One envelope of a stream: its flags and message. */
    record Envelope(int flags, JsonObject message) {
        boolean endStream() {
            return (flags & 0x02) != 0;
        }
    }

    private final URI base;
    private final String key;

    ConnectClient(URI base, String key) {
        this.base = base;
        this.key = key;
    }

    Answer unary(String method, String json) throws IOException {
        return unary(method, json, Map.of());
    }

    Answer unary(String method, String json, Map<String, String> headers) throws IOException {
        HttpURLConnection connection = open("/" + method, headers);
        connection.setRequestProperty("Content-Type", "application/json");
        connection.setRequestProperty("Connect-Protocol-Version", "1");
        try (OutputStream out = connection.getOutputStream()) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
        int status = connection.getResponseCode();
        InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
        byte[] body = in == null ? new byte[0] : in.readAllBytes();
        assertTrue(!new String(body, StandardCharsets.UTF_8).contains(":null"), "no JSON null is ever sent");
        return new Answer(status, connection.getContentType(), body.length == 0 ? null : parse(body));
    }

    /** A unary call that must succeed: its message. */
    JsonObject ok(String method, String json) throws IOException {
        Answer answer = unary(method, json);
        assertEquals(200, answer.status(), method + " answered " + answer.body());
        return answer.body();
    }

    /** {@code List}'s processes. */
    List<JsonObject> list() throws IOException {
        return ok("process.Process/List", "{}").getJsonArray("processes").getValuesAs(JsonObject.class);
    }

    Stream stream(String method, String json) throws IOException {
        return stream(method, json, Map.of());
    }

    Stream stream(String method, String json, Map<String, String> headers) throws IOException {
        HttpURLConnection connection = open("/" + method, headers);
        connection.setRequestProperty("Content-Type", ConnectWire.STREAM_TYPE);
        connection.setRequestProperty("Connect-Protocol-Version", "1");
        byte[] message = json.getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = connection.getOutputStream()) {
            out.write(ByteBuffer.allocate(5 + message.length).put((byte) 0).putInt(message.length).put(message).array());
        }
        assertEquals(200, connection.getResponseCode(), "a stream always answers 200");
        assertTrue(connection.getContentType().startsWith(ConnectWire.STREAM_TYPE), connection.getContentType());
        return new Stream(connection);
    }

    HttpURLConnection open(String pathAndQuery, Map<String, String> headers) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) base.resolve(pathAndQuery).toURL().openConnection();
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        connection.setConnectTimeout(5_000);
        connection.setReadTimeout(20_000);
        connection.setRequestProperty(ExecutorRequests.SESSION_HEADER, key);
        headers.forEach(connection::setRequestProperty);
        return connection;
    }

    static JsonObject parse(byte[] json) {
        try (JsonReader reader = Json.createReader(new ByteArrayInputStream(json))) {
            return reader.readObject();
        }
    }

    /** An open server stream. */
    static final class Stream implements AutoCloseable {
        private final HttpURLConnection connection;
        private final DataInputStream in;

        Stream(HttpURLConnection connection) throws IOException {
            this.connection = connection;
            this.in = new DataInputStream(connection.getInputStream());
        }

        /** The next envelope, as soon as it arrives. */
        Envelope next() throws IOException {
            int flags = in.read();
            if (flags < 0) {
                throw new EOFException("the stream ended without an end-stream envelope");
            }
            byte[] message = new byte[in.readInt()];
            in.readFully(message);
            String text = new String(message, StandardCharsets.UTF_8);
            assertTrue(!text.contains(":null"), "no JSON null is ever sent: " + text);
            return new Envelope(flags, parse(message));
        }

        /** Every envelope up to and including the end-stream one; the body must end there. */
        List<Envelope> rest() throws IOException {
            List<Envelope> all = new ArrayList<>();
            Envelope envelope;
            do {
                envelope = next();
                all.add(envelope);
            } while (!envelope.endStream());
            assertEquals(-1, in.read(), "nothing after the end-stream envelope");
            return all;
        }

        /** Drops the connection, as the SDK's disconnect() aborts its fetch. */
        @Override
        public void close() {
            connection.disconnect();
        }
    }
}
