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

        /**
         * At the opening quote; leaves {@code pos} after the closing one. One pass finds the end,
         * whether there are escapes and whether all is ASCII: ASCII text becomes a string by a
         * plain copy (ISO-8859-1), other text by one UTF-8 decode. Escapes are resolved into a
         * byte array of the raw length (never shorter than the result) as UTF-8.
         */
        private String string() {
            int start = ++pos;
            boolean ascii = true;
            while (pos < end) {
                byte c = b[pos];
                if (c == '"') {
                    return new String(b, start, pos++ - start,
                            ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
                }
                if (c == '\\') {
                    return escapedString(start, ascii);
                }
                if (c < 0) {
                    ascii = false;
                } else if (c < 0x20) {
                    throw fail("control character in a string");
                }
                pos++;
            }
            throw fail("unterminated string");
        }

        /** At the first backslash of the string that starts at {@code start}. */
        private String escapedString(int start, boolean ascii) {
            // the raw bytes up to the closing quote: the decoded text is never longer (an escape
            // of k bytes stands for at most k bytes of UTF-8), so one array holds it
            int close = pos;
            while (close < end && b[close] != '"') {
                close += b[close] == '\\' ? 2 : 1;
            }
            byte[] out = new byte[Math.min(close, end) - start];
            int n = pos - start;
            System.arraycopy(b, start, out, 0, n);
            int run = pos;
            while (pos < end) {
                byte c = b[pos];
                if (c == '"' || c == '\\') {
                    int len = pos - run;
                    System.arraycopy(b, run, out, n, len);
                    n += len;
                    if (c == '"') {
                        pos++;
                        return new String(out, 0, n, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
                    }
                    int codePoint = escape();
                    if (codePoint < 0) {
                        // a lone surrogate has no UTF-8 form: this string is built from chars instead
                        return charString(start);
                    }
                    if (codePoint >= 0x80) {
                        ascii = false;
                    }
                    n = putUtf8(out, n, codePoint);
                    run = pos;
                } else if (c < 0) {
                    ascii = false;
                    pos++;
                } else if (c < 0x20) {
                    throw fail("control character in a string");
                } else {
                    pos++;
                }
            }
            throw fail("unterminated string");
        }

        private static int putUtf8(byte[] out, int n, int cp) {
            if (cp < 0x80) {
                out[n++] = (byte) cp;
            } else if (cp < 0x800) {
                out[n++] = (byte) (0xC0 | cp >> 6);
                out[n++] = (byte) (0x80 | cp & 0x3F);
            } else if (cp < 0x10000) {
                out[n++] = (byte) (0xE0 | cp >> 12);
                out[n++] = (byte) (0x80 | cp >> 6 & 0x3F);
                out[n++] = (byte) (0x80 | cp & 0x3F);
            } else {
                out[n++] = (byte) (0xF0 | cp >> 18);
                out[n++] = (byte) (0x80 | cp >> 12 & 0x3F);
                out[n++] = (byte) (0x80 | cp >> 6 & 0x3F);
                out[n++] = (byte) (0x80 | cp & 0x3F);
            }
            return n;
        }

        /**
         * At a backslash; leaves {@code pos} after the escape (a surrogate pair is one) and answers
         * its code point, or -1 for a lone surrogate ({@code pos} then after its first escape).
         */
        private int escape() {
            if (pos + 1 >= end) {
                throw fail("unterminated escape");
            }
            byte c = b[pos + 1];
            pos += 2;
            switch (c) {
                case '"':
                    return '"';
                case '\\':
                    return '\\';
                case '/':
                    return '/';
                case 'b':
                    return '\b';
                case 'f':
                    return '\f';
                case 'n':
                    return '\n';
                case 'r':
                    return '\r';
                case 't':
                    return '\t';
                case 'u':
                    break;
                default:
                    pos -= 2;
                    throw fail("invalid escape");
            }
            char unit = hex4();
            if (!Character.isSurrogate(unit)) {
                return unit;
            }
            if (Character.isHighSurrogate(unit) && end - pos >= 6 && b[pos] == '\\' && b[pos + 1] == 'u') {
                int mark = pos;
                pos += 2;
                char low = hex4();
                if (Character.isLowSurrogate(low)) {
                    return Character.toCodePoint(unit, low);
                }
                pos = mark;
            }
            return -1;
        }

        /** The rare string with a lone surrogate: decoded char by char from its start. */
        private String charString(int start) {
            pos = start;
            StringBuilder text = new StringBuilder();
            int run = start;
            while (pos < end) {
                byte c = b[pos];
                if (c == '"') {
                    text.append(new String(b, run, pos - run, StandardCharsets.UTF_8));
                    pos++;
                    return text.toString();
                }
                if (c == '\\') {
                    text.append(new String(b, run, pos - run, StandardCharsets.UTF_8));
                    int mark = pos;
                    int codePoint = escape();
                    if (codePoint >= 0) {
                        text.appendCodePoint(codePoint);
                    } else {
                        // the lone surrogate itself, as JSON-P keeps it
                        pos = mark + 2;
                        text.append(hex4());
                    }
                    run = pos;
                } else if (c >= 0 && c < 0x20) {
                    throw fail("control character in a string");
                } else {
                    pos++;
                }
            }
            throw fail("unterminated string");
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

        /**
         * Tries the string as ASCII first: {@code getBytes(ISO_8859_1)} of a Latin-1 string is a
         * plain copy, where UTF-8 encoding scans it first. A byte that is negative (a Latin-1
         * character above 0x7F) or {@code '?'} (what ISO-8859-1 substitutes for anything else) may
         * not be the character itself: then the string is written again from its UTF-8 bytes.
         */
        private void string(String s) {
            int mark = count;
            if (!escaped(s.getBytes(StandardCharsets.ISO_8859_1), true)) {
                count = mark;
                escaped(s.getBytes(StandardCharsets.UTF_8), false);
            }
        }

        /** Writes the quoted, escaped bytes; false (having written part) when ASCII was assumed and is not so. */
        private boolean escaped(byte[] text, boolean asciiOnly) {
            ensure(text.length + 2 + (text.length >> 4));
            put('"');
            int run = 0;
            for (int i = 0; i < text.length; i++) {
                byte c = text[i];
                if (c >= 0x20 && c != '"' && c != '\\' && c != '?') {
                    continue;
                }
                if (c < 0 || c == '?') {
                    if (asciiOnly) {
                        return false;
                    }
                    // bytes of multi-byte sequences are negative: never escaped, nor is '?'
                    continue;
                }
                bytes(text, run, i);
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
            bytes(text, run, text.length);
            put('"');
            return true;
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
