package dev.dockyard.protocol;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * JSON-P values to and from UTF-8 bytes in one pass over a byte array.
 *
 * <p>Why not JSON-P's own reader and generator: they go through a {@code Reader}/{@code Writer}
 * one character at a time, which for the 1 MB {@code content} of a file {@code write} or
 * {@code read} costs ~9 ms each way on the executor's C1-only JVM. Here a string without escapes
 * is one bulk UTF-8 decode ({@code new String(bytes, UTF_8)}), and writing scans the string's
 * UTF-8 bytes for the few that need escaping (quote, backslash, control characters) and copies
 * the runs between them: UTF-8's multi-byte sequences never contain those bytes.
 *
 * <p>The grammar is RFC 8259's, strictly: one value, nothing after it but whitespace, no control
 * character inside strings, numbers as JSON writes them. Malformed UTF-8 decodes to U+FFFD, as
 * JSON-P's reader does. The values built are JSON-P's own (its provider's builders), so
 * everything downstream ({@link ProtocolJson}) is unchanged. Escapes are written as JSON-P's
 * generator writes them.
 */
public final class JsonBytes {

    /** Deeper nesting is refused before it can exhaust the (small) thread stack. */
    static final int MAX_DEPTH = 500;

    /** Looked up once: {@code Json.create...} looks the provider up on every call. */
    private static final JsonProvider JSON = JsonProvider.provider();

    private JsonBytes() {
    }

    /** Malformed JSON; the message says what and at which byte offset. */
    public static final class MalformedJsonException extends InvalidActionException {
        private static final long serialVersionUID = 1L;

        MalformedJsonException(String message, int offset) {
            super("The body is not valid JSON: " + message + " at byte " + offset);
        }
    }

    // ------------------------------------------------------------------ reading

    /** Parses {@code bytes[0, length)} as one JSON value. */
    public static JsonValue read(byte[] bytes, int length) {
        Reader reader = new Reader(bytes, length);
        reader.skipByteOrderMark();
        reader.skipWhitespace();
        JsonValue value = reader.value(0);
        reader.skipWhitespace();
        if (reader.pos != length) {
            throw reader.fail("unexpected data after the value");
        }
        return value;
    }

    public static JsonValue read(byte[] bytes) {
        return read(bytes, bytes.length);
    }

    private static final class Reader {
        private final byte[] b;
        private final int end;
        private int pos;

        Reader(byte[] bytes, int length) {
            if (length < 0 || length > bytes.length) {
                throw new IllegalArgumentException("length " + length + " outside the array");
            }
            this.b = bytes;
            this.end = length;
        }

        void skipByteOrderMark() {
            if (end >= 3 && b[0] == (byte) 0xEF && b[1] == (byte) 0xBB && b[2] == (byte) 0xBF) {
                pos = 3;
            }
        }

        void skipWhitespace() {
            while (pos < end) {
                byte c = b[pos];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                    return;
                }
                pos++;
            }
        }

        MalformedJsonException fail(String message) {
            return new MalformedJsonException(message, pos);
        }

        JsonValue value(int depth) {
            if (pos >= end) {
                throw fail("unexpected end of input");
            }
            return switch (b[pos]) {
                case '{' -> object(depth + 1);
                case '[' -> array(depth + 1);
                case '"' -> JSON.createValue(string());
                case 't' -> literal("true", JsonValue.TRUE);
                case 'f' -> literal("false", JsonValue.FALSE);
                case 'n' -> literal("null", JsonValue.NULL);
                default -> number();
            };
        }

        private JsonObject object(int depth) {
            checkDepth(depth);
            pos++;
            JsonObjectBuilder builder = JSON.createObjectBuilder();
            skipWhitespace();
            if (pos < end && b[pos] == '}') {
                pos++;
                return builder.build();
            }
            while (true) {
                skipWhitespace();
                if (pos >= end || b[pos] != '"') {
                    throw fail("expected a member name in quotes");
                }
                String name = string();
                skipWhitespace();
                expect(':');
                skipWhitespace();
                builder.add(name, value(depth));
                skipWhitespace();
                if (pos < end && b[pos] == ',') {
                    pos++;
                } else {
                    expect('}');
                    return builder.build();
                }
            }
        }

        private JsonArray array(int depth) {
            checkDepth(depth);
            pos++;
            JsonArrayBuilder builder = JSON.createArrayBuilder();
            skipWhitespace();
            if (pos < end && b[pos] == ']') {
                pos++;
                return builder.build();
            }
            while (true) {
                skipWhitespace();
                builder.add(value(depth));
                skipWhitespace();
                if (pos < end && b[pos] == ',') {
                    pos++;
                } else {
                    expect(']');
                    return builder.build();
                }
            }
        }

        private void checkDepth(int depth) {
            if (depth > MAX_DEPTH) {
                throw fail("nested deeper than " + MAX_DEPTH + " levels");
            }
        }

        private void expect(char c) {
            if (pos >= end || b[pos] != c) {
                throw fail("expected '" + c + "'");
            }
            pos++;
        }

        private JsonValue literal(String word, JsonValue value) {
            int n = word.length();
            if (end - pos < n) {
                throw fail("unexpected end of input");
            }
            for (int i = 0; i < n; i++) {
                if (b[pos + i] != word.charAt(i)) {
                    throw fail("unexpected character");
                }
            }
            pos += n;
            return value;
        }

        /** At the opening quote; leaves {@code pos} after the closing one. */
        private String string() {
            int start = ++pos;
            // the common case: no escape, one bulk decode of the whole run
            while (pos < end) {
                byte c = b[pos];
                if (c == '"') {
                    return new String(b, start, pos++ - start, StandardCharsets.UTF_8);
                }
                if (c == '\\') {
                    break;
                }
                if (c >= 0 && c < 0x20) {
                    throw fail("control character in a string");
                }
                pos++;
            }
            StringBuilder text = new StringBuilder();
            int run = start;
            while (pos < end) {
                byte c = b[pos];
                if (c == '"') {
                    appendRun(text, run, pos);
                    pos++;
                    return text.toString();
                }
                if (c == '\\') {
                    appendRun(text, run, pos);
                    escape(text);
                    run = pos;
                } else if (c >= 0 && c < 0x20) {
                    throw fail("control character in a string");
                } else {
                    pos++;
                }
            }
            throw fail("unterminated string");
        }

        private void appendRun(StringBuilder text, int from, int to) {
            if (to > from) {
                text.append(new String(b, from, to - from, StandardCharsets.UTF_8));
            }
        }

        /** At the backslash; leaves {@code pos} after the escape. */
        private void escape(StringBuilder text) {
            if (pos + 1 >= end) {
                throw fail("unterminated escape");
            }
            byte c = b[pos + 1];
            pos += 2;
            switch (c) {
                case '"' -> text.append('"');
                case '\\' -> text.append('\\');
                case '/' -> text.append('/');
                case 'b' -> text.append('\b');
                case 'f' -> text.append('\f');
                case 'n' -> text.append('\n');
                case 'r' -> text.append('\r');
                case 't' -> text.append('\t');
                case 'u' -> text.append(hex4());
                default -> {
                    pos -= 2;
                    throw fail("invalid escape");
                }
            }
        }

        private char hex4() {
            if (end - pos < 4) {
                throw fail("truncated \\u escape");
            }
            int value = 0;
            for (int i = 0; i < 4; i++) {
                int digit = Character.digit(b[pos + i], 16);
                if (digit < 0) {
                    throw fail("invalid \\u escape");
                }
                value = value * 16 + digit;
            }
            pos += 4;
            return (char) value;
        }

        private JsonNumber number() {
            int start = pos;
            if (pos < end && b[pos] == '-') {
                pos++;
            }
            if (pos >= end || !digit(b[pos])) {
                pos = start;
                throw fail("unexpected character");
            }
            if (b[pos] == '0') {
                pos++;
            } else {
                digits();
            }
            boolean integral = true;
            if (pos < end && b[pos] == '.') {
                pos++;
                requireDigit();
                digits();
                integral = false;
            }
            if (pos < end && (b[pos] == 'e' || b[pos] == 'E')) {
                pos++;
                if (pos < end && (b[pos] == '+' || b[pos] == '-')) {
                    pos++;
                }
                requireDigit();
                digits();
                integral = false;
            }
            String text = new String(b, start, pos - start, StandardCharsets.ISO_8859_1);
            // as JSON-P's reader: an integer that fits is a long, everything else a BigDecimal
            if (integral && pos - start <= 18) {
                return JSON.createValue(Long.parseLong(text));
            }
            return JSON.createValue(new BigDecimal(text));
        }

        private void requireDigit() {
            if (pos >= end || !digit(b[pos])) {
                throw fail("expected a digit");
            }
        }

        private void digits() {
            while (pos < end && digit(b[pos])) {
                pos++;
            }
        }

        private static boolean digit(byte c) {
            return c >= '0' && c <= '9';
        }
    }

    // ------------------------------------------------------------------ writing

    /** The value as compact JSON in UTF-8. */
    public static byte[] write(JsonValue value) {
        Writer writer = new Writer();
        writer.value(value);
        return writer.toByteArray();
    }

    private static final class Writer {
        private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
        private byte[] buf = new byte[256];
        private int count;

        byte[] toByteArray() {
            return Arrays.copyOf(buf, count);
        }

        void value(JsonValue value) {
            switch (value.getValueType()) {
                case OBJECT -> {
                    put('{');
                    boolean first = true;
                    for (Map.Entry<String, JsonValue> member : ((JsonObject) value).entrySet()) {
                        if (!first) {
                            put(',');
                        }
                        first = false;
                        string(member.getKey());
                        put(':');
                        value(member.getValue());
                    }
                    put('}');
                }
                case ARRAY -> {
                    put('[');
                    boolean first = true;
                    for (JsonValue item : (JsonArray) value) {
                        if (!first) {
                            put(',');
                        }
                        first = false;
                        value(item);
                    }
                    put(']');
                }
                case STRING -> string(((JsonString) value).getString());
                case NUMBER, TRUE, FALSE, NULL -> ascii(value.toString());
            }
        }

        private void string(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            ensure(utf8.length + 2);
            put('"');
            int run = 0;
            for (int i = 0; i < utf8.length; i++) {
                byte c = utf8[i];
                // bytes of multi-byte sequences are negative: never escaped
                if (c >= 0x20 && c != '"' && c != '\\' || c < 0) {
                    continue;
                }
                bytes(utf8, run, i);
                run = i + 1;
                switch (c) {
                    case '"' -> escape('"');
                    case '\\' -> escape('\\');
                    case '\b' -> escape('b');
                    case '\f' -> escape('f');
                    case '\n' -> escape('n');
                    case '\r' -> escape('r');
                    case '\t' -> escape('t');
                    default -> {
                        ensure(6);
                        put('\\');
                        put('u');
                        put('0');
                        put('0');
                        put((char) HEX[c >> 4]);
                        put((char) HEX[c & 0xF]);
                    }
                }
            }
            bytes(utf8, run, utf8.length);
            put('"');
        }

        private void escape(char c) {
            put('\\');
            put(c);
        }

        private void ascii(String s) {
            for (int i = 0; i < s.length(); i++) {
                put(s.charAt(i));
            }
        }

        private void bytes(byte[] from, int start, int stop) {
            int n = stop - start;
            if (n > 0) {
                ensure(n);
                System.arraycopy(from, start, buf, count, n);
                count += n;
            }
        }

        private void put(char c) {
            ensure(1);
            buf[count++] = (byte) c;
        }

        private void ensure(int more) {
            if (buf.length - count < more) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more + (count >> 3)));
            }
        }
    }
}
