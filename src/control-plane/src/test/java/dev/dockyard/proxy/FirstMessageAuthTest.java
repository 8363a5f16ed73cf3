package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.proxy.FirstMessageAuth.Outcome;
import dev.dockyard.proxy.FirstMessageAuth.Result;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The first message of a WebSocket whose client signs in with it, as OpenHands' SDK sends it. */
class FirstMessageAuthTest {

    private static final byte[] MASK = {0x12, 0x34, 0x56, 0x78};

    /** A client's frame: masked, FIN, of {@code opcode}. */
    private static byte[] frame(int opcode, String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x80 | opcode);
        if (payload.length < 126) {
            out.write(0x80 | payload.length);
        } else {
            out.write(0x80 | 126);
            out.write(payload.length >>> 8);
            out.write(payload.length & 0xff);
        }
        out.writeBytes(MASK);
        for (int i = 0; i < payload.length; i++) {
            out.write(payload[i] ^ MASK[i & 3]);
        }
        return out.toByteArray();
    }

    /** The payload of the one frame at the start of {@code bytes}, unmasked, and its length in bytes. */
    private static String payload(byte[] bytes) {
        int code = bytes[1] & 0x7f;
        int header = code == 126 ? 4 : 2;
        int length = code == 126 ? ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff) : code;
        byte[] mask = Arrays.copyOfRange(bytes, header, header + 4);
        byte[] payload = Arrays.copyOfRange(bytes, header + 4, header + 4 + length);
        for (int i = 0; i < payload.length; i++) {
            payload[i] ^= mask[i & 3];
        }
        return new String(payload, StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void shouldPutTheInternalKeyInPlaceOfThePublicOneAndPassWhatFollows() {
        // remote_conversation.py: ws.send(json.dumps({"type": "auth", "session_api_key": self.api_key}))
        byte[] signIn = frame(1, "{\"type\": \"auth\", \"session_api_key\": \"PUBLIC-KEY-0123456789\"}");
        byte[] next = frame(1, "{\"type\": \"ping\"}");
        FirstMessageAuth auth = new FirstMessageAuth("PUBLIC-KEY-0123456789", "internal-key-of-another-length-" + "x".repeat(120));
        byte[] all = concat(signIn, next);

        // in three pieces, the first shorter than a frame's header
        assertEquals(Outcome.NEED_MORE, auth.offer(all, 0, 1).outcome());
        assertEquals(Outcome.NEED_MORE, auth.offer(all, 1, 10).outcome());
        Result result = auth.offer(all, 11, all.length - 11);

        assertEquals(Outcome.PASSED, result.outcome());
        byte[] sent = result.toService();
        assertEquals("{\"type\":\"auth\",\"session_api_key\":\"internal-key-of-another-length-" + "x".repeat(120) + "\"}",
                payload(sent));
        assertEquals(0x81, sent[0] & 0xff);
        assertArrayEquals(next, Arrays.copyOfRange(sent, sent.length - next.length, sent.length), "what follows, untouched");
    }

    @Test
    void shouldRefuseAnythingButTheSignInWithThePublicKey() {
        for (byte[] first : new byte[][] {
                frame(1, "{\"type\": \"auth\", \"session_api_key\": \"INTERNAL\"}"),
                frame(1, "{\"type\": \"auth\", \"session_api_key\": \"PUBLI\"}"),
                frame(1, "{\"type\": \"other\", \"session_api_key\": \"PUBLIC\"}"),
                frame(1, "{\"type\": \"auth\"}"),
                frame(1, "[\"PUBLIC\"]"),
                frame(1, "not json"),
                frame(2, "{\"type\": \"auth\", \"session_api_key\": \"PUBLIC\"}"),
                frame(1, "{\"type\": \"auth\", \"session_api_key\": \"PUBLIC\", \"pad\": \"" + "p".repeat(9000) + "\"}")}) {
            FirstMessageAuth auth = new FirstMessageAuth("PUBLIC", "INTERNAL");
            assertEquals(Outcome.REFUSED, auth.offer(first, 0, first.length).outcome(), new String(first,
                    StandardCharsets.ISO_8859_1));
        }
        byte[] compressed = frame(1, "{\"type\": \"auth\", \"session_api_key\": \"PUBLIC\"}");
        compressed[0] |= 0x40;
        assertEquals(Outcome.REFUSED, new FirstMessageAuth("PUBLIC", "INTERNAL").offer(compressed, 0, compressed.length)
                .outcome(), "RSV1 (permessage-deflate) was not agreed");
        byte[] unmasked = frame(1, "{\"type\": \"auth\", \"session_api_key\": \"PUBLIC\"}");
        unmasked[1] &= 0x7f;
        assertEquals(Outcome.REFUSED, new FirstMessageAuth("PUBLIC", "INTERNAL").offer(unmasked, 0, unmasked.length)
                .outcome(), "a client frame is masked");
    }
}
