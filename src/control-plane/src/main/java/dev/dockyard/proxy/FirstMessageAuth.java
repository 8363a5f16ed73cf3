package dev.dockyard.proxy;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A WebSocket whose client signs in with its first message, as OpenHands' SDK opens the agent
 * server's event stream ({@code /sockets/events/{id}}: no key on the handshake, then
 * {@code {"type": "auth", "session_api_key": "…"}} as the first frame; {@code sockets.py} in the
 * agent server). The proxy admits such a handshake without a key, holds what the client sends
 * until that first frame is complete, and checks it: with the runtime's public key, the frame goes
 * on with the internal key in its place (the only key the sandbox knows), and everything after it
 * passes untouched; with anything else, nothing of it reaches the sandbox and the client is closed
 * with the agent server's own close code, {@value #AUTH_FAILED}.
 *
 * <p>Only a single unfragmented, uncompressed text frame of at most {@value #MAX_FRAME} bytes can
 * sign in (the proxy agrees to no extension for such a tunnel, so permessage-deflate is off).
 * Client frames are masked (RFC 6455 §5.3): the rewritten frame is masked with the client's mask.
 */
final class FirstMessageAuth {

    /** The agent server's close code for a failed sign-in. */
    static final int AUTH_FAILED = 4001;
    static final int MAX_FRAME = 8 * 1024;
    private static final int TEXT = 0x1;
    private static final int FIN = 0x80;
    private static final String KEY = "session_api_key";

    /** What the bytes offered so far come to. */
    enum Outcome { NEED_MORE, PASSED, REFUSED }

    /**
     * @param outcome   what to do
     * @param toService for {@code PASSED}, the bytes to send the sandbox: the rewritten first frame
     *                  and whatever the client sent after it
     */
    record Result(Outcome outcome, byte[] toService) {
    }

    private final String publicKey;
    private final String internalKey;
    private final ByteArrayOutputStream held = new ByteArrayOutputStream();

    FirstMessageAuth(String publicKey, String internalKey) {
        this.publicKey = publicKey;
        this.internalKey = internalKey;
    }

    /** The next bytes the client sent. */
    Result offer(byte[] bytes, int offset, int length) {
        held.write(bytes, offset, length);
        byte[] all = held.toByteArray();
        if (all.length < 2) {
            return new Result(Outcome.NEED_MORE, null);
        }
        int first = all[0] & 0xff;
        int second = all[1] & 0xff;
        // RSV bits: no extension was agreed for such a tunnel, so a frame that sets one is no sign-in
        if ((first & FIN) == 0 || (first & 0x70) != 0 || (first & 0x0f) != TEXT || (second & 0x80) == 0) {
            return refused();
        }
        int code = second & 0x7f;
        int header = code == 126 ? 4 : code == 127 ? 10 : 2;
        if (all.length < header) {
            return new Result(Outcome.NEED_MORE, null);
        }
        long payloadLength = code < 126 ? code : code == 126 ? ((all[2] & 0xff) << 8) | (all[3] & 0xff) : MAX_FRAME + 1L;
        if (payloadLength > MAX_FRAME) {
            return refused();
        }
        int frameLength = header + 4 + (int) payloadLength;
        if (all.length < frameLength) {
            return all.length > MAX_FRAME + 14 ? refused() : new Result(Outcome.NEED_MORE, null);
        }
        byte[] mask = Arrays.copyOfRange(all, header, header + 4);
        byte[] payload = Arrays.copyOfRange(all, header + 4, frameLength);
        masked(payload, mask);
        byte[] rewritten = rewritten(new String(payload, StandardCharsets.UTF_8));
        if (rewritten == null) {
            return refused();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(frameLength + 64);
        out.write(FIN | TEXT);
        if (rewritten.length < 126) {
            out.write(0x80 | rewritten.length);
        } else {
            out.write(0x80 | 126);
            out.write(rewritten.length >>> 8);
            out.write(rewritten.length & 0xff);
        }
        out.writeBytes(mask);
        masked(rewritten, mask);
        out.writeBytes(rewritten);
        out.write(all, frameLength, all.length - frameLength);
        held.reset();
        return new Result(Outcome.PASSED, out.toByteArray());
    }

    /** The sign-in message with the internal key, or null when it does not sign in with the public one. */
    private byte[] rewritten(String text) {
        JsonObject message;
        try (var reader = Jsonp.createReader(new StringReader(text))) {
            JsonValue value = reader.readValue();
            if (!(value instanceof JsonObject object)) {
                return null;
            }
            message = object;
        } catch (RuntimeException e) {
            return null;
        }
        if (!(message.get(KEY) instanceof JsonString key) || !"auth".equals(message.getString("type", null))
                || !ProxyAuthentication.matches(key.getString(), publicKey)) {
            return null;
        }
        return Jsonp.createObjectBuilder(message).add(KEY, internalKey).build().toString()
                .getBytes(StandardCharsets.UTF_8);
    }

    private Result refused() {
        held.reset();
        return new Result(Outcome.REFUSED, null);
    }

    private static void masked(byte[] payload, byte[] mask) {
        for (int i = 0; i < payload.length; i++) {
            payload[i] ^= mask[i & 3];
        }
    }
}
