package dev.dockyard.protocol;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * JSON-P values to and from UTF-8 bytes in one pass over a byte array.
 *
 * <p>Why not JSON-P's own reader and generator: they go through a {@code Reader}/{@code Writer}
 * one character at a time, which for the 1 MB {@code content} of a file {@code write} or
 * {@code read} costs ~9 ms each way on the executor's C1-only JVM. Here string values are read
 * as {@link Utf8Text} views of the array itself (escapes resolved in place), and a string value
 * that holds UTF-8 bytes is written from them: a file's content passes through without a String.
 * Writing scans the UTF-8 bytes for the few that need escaping (quote, backslash, control
 * characters) and copies the runs between them: UTF-8's multi-byte sequences never contain those
 * bytes.
 *
 * <p>The grammar is RFC 8259's, strictly: one value, nothing after it but whitespace, no control
 * character inside strings, numbers as JSON writes them. Malformed UTF-8 decodes to U+FFFD, as
 * JSON-P's reader does. Objects, arrays and numbers are JSON-P's own (its provider's builders)
 * and strings are {@link JsonString}s equal to JSON-P's, so everything downstream
 * ({@link ProtocolJson}) reads them as before. Escapes are written as JSON-P's generator writes
 * them.
 *
 * <p>A {@linkplain #read(byte[], int, Strictness) strict read} refuses, in the same pass, what
 * the control plane's API refuses in a body beyond the grammar: malformed UTF-8, a lone surrogate,
 * a member name twice in one object, nesting past a limit, and numbers too long or out of range.
 * The executor reads leniently, as JSON-P does; the API strictly, because two readers of an
 * ambiguous body (a check and the sandbox) could each take it a different way.
 *
 * <p>Longer than the house's 500 lines on purpose: a one-pass reader and writer of one grammar,
 * sharing its escape and UTF-8 rules and the array and position they walk.
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

    /**
     * What a strict read refuses beyond the grammar: nesting deeper than {@code maxDepth}
     * containers, a number literal longer than {@code maxNumberChars}, one whose decimal exponent
     * is past {@code maxNumberScale} either way; and always malformed UTF-8, a lone surrogate and
     * a member name twice in one object.
     */
    public record Strictness(int maxDepth, int maxNumberChars, int maxNumberScale) {
    }

    /** A body a strict read refuses though it may follow the grammar: why, and what it concerns. */
    public static final class RefusedJsonException extends InvalidActionException {
        private static final long serialVersionUID = 1L;

        /** Why a body was refused. */
        public enum Reason {
            /** Bytes that are not UTF-8 inside a string. */
            MALFORMED_UTF8,
            /** A surrogate escape without its other half; the subject is its four hex digits. */
            LONE_SURROGATE,
            /** A member name twice in one object; the subject is the name. */
            DUPLICATE_NAME,
            /** Containers nested past the limit; the subject is the limit (at most the lenient one). */
            TOO_DEEP,
            /** A number literal longer than the limit. */
            NUMBER_TOO_LONG,
            /** A number whose exponent is past the limit. */
            NUMBER_OUT_OF_RANGE
        }

        private final Reason reason;
        private final transient String subject;

        RefusedJsonException(Reason reason, String subject, int offset) {
            super("The body is refused: " + reason + " at byte " + offset);
            this.reason = reason;
            this.subject = subject;
        }

        public Reason reason() {
            return reason;
        }

        /** The name or escape concerned; empty when the reason says all. */
        public String subject() {
            return subject;
        }
    }

    // ------------------------------------------------------------------ reading

    /**
     * Parses {@code bytes[0, length)} as one JSON value. The array is the values' from then on:
     * string values are views of it ({@link #text}), their escapes resolved within it.
     */
    public static JsonValue read(byte[] bytes, int length) {
        return read(bytes, length, null);
    }

    /**
     * Parses {@code bytes[0, length)} as {@link #read(byte[], int)} does, refusing also what
     * {@code strictness} says ({@link RefusedJsonException}); null reads leniently.
     */
    public static JsonValue read(byte[] bytes, int length, Strictness strictness) {
        Reader reader = new Reader(bytes, length, strictness);
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
        /** Null when lenient. */
        private final Strictness strict;
        private final int maxDepth;
        private int pos;

        Reader(byte[] bytes, int length, Strictness strictness) {
            if (length < 0 || length > bytes.length) {
                throw new IllegalArgumentException("length " + length + " outside the array");
            }
            this.b = bytes;
            this.end = length;
            this.strict = strictness;
            this.maxDepth = strictness == null ? MAX_DEPTH : Math.min(MAX_DEPTH, strictness.maxDepth());
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

        RefusedJsonException refuse(RefusedJsonException.Reason reason, String subject) {
            return new RefusedJsonException(reason, subject, pos);
        }

        JsonValue value(int depth) {
            if (pos >= end) {
                throw fail("unexpected end of input");
            }
            return switch (b[pos]) {
                case '{' -> object(depth + 1);
                case '[' -> array(depth + 1);
                case '"' -> new Utf8JsonString(text());
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
            // leniently the last of two equal names wins, as in JSON-P's reader
            Set<String> names = strict == null ? null : new HashSet<>();
            while (true) {
                skipWhitespace();
                if (pos >= end || b[pos] != '"') {
                    throw fail("expected a member name in quotes");
                }
                String name = text().toString();
                if (names != null && !names.add(name)) {
                    throw refuse(RefusedJsonException.Reason.DUPLICATE_NAME, name);
                }
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
            if (depth > maxDepth) {
                throw strict != null ? refuse(RefusedJsonException.Reason.TOO_DEEP, String.valueOf(maxDepth))
                        : fail("nested deeper than " + maxDepth + " levels");
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
         * At the opening quote; leaves {@code pos} after the closing one. Escapes are resolved in
         * place: a text is never longer than its JSON form (an escape of k bytes stands for at
         * most k bytes of UTF-8), so it is moved down over its own escapes and ends up a slice of
         * the array, found between escapes eight bytes at a time ({@link Utf8Bytes}). Well-formed
         * UTF-8 stays that slice; malformed bytes decode to U+FFFD, as JSON-P's reader does.
         */
        private Utf8Text text() {
            int start = ++pos;
            int n = start;
            while (true) {
                int special = Utf8Bytes.firstJsonSpecial(b, pos, end);
                if (n != pos) {
                    System.arraycopy(b, pos, b, n, special - pos);
                }
                n += special - pos;
                pos = special;
                if (pos >= end) {
                    throw fail("unterminated string");
                }
                if (b[pos] == '"') {
                    pos++;
                    if (Utf8Bytes.isWellFormed(b, start, n)) {
                        return Utf8Text.wellFormed(b, start, n - start);
                    }
                    if (strict != null) {
                        throw refuse(RefusedJsonException.Reason.MALFORMED_UTF8, "");
                    }
                    return Utf8Text.of(new String(b, start, n - start, StandardCharsets.UTF_8));
                }
                if (b[pos] != '\\') {
                    throw fail("control character in a string");
                }
                int mark = pos;
                int codePoint = escape();
                if (codePoint < 0 && strict != null) {
                    pos = mark + 2;
                    throw refuse(RefusedJsonException.Reason.LONE_SURROGATE, Integer.toHexString(hex4()));
                }
                if (codePoint < 0) {
                    // a lone surrogate has no UTF-8 form: the rest of this string is built from chars
                    return Utf8Text.of(charString(new String(b, start, n - start, StandardCharsets.UTF_8), mark));
                }
                n = putUtf8(b, n, codePoint);
            }
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

        /**
         * The rare string with a lone surrogate: {@code decoded} is its text before the escape at
         * {@code from}; the rest is decoded char by char.
         */
        private String charString(String decoded, int from) {
            pos = from;
            StringBuilder text = new StringBuilder(decoded);
            int run = from;
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
            if (strict != null && pos - start > strict.maxNumberChars()) {
                throw refuse(RefusedJsonException.Reason.NUMBER_TOO_LONG, "");
            }
            String text = new String(b, start, pos - start, StandardCharsets.ISO_8859_1);
            // as JSON-P's reader: an integer that fits is a long, everything else a BigDecimal
            if (integral && pos - start <= 18) {
                return JSON.createValue(Long.parseLong(text));
            }
            BigDecimal number;
            try {
                number = new BigDecimal(text);
            } catch (NumberFormatException e) {
                // an exponent past an int's range
                throw strict != null ? refuse(RefusedJsonException.Reason.NUMBER_OUT_OF_RANGE, "")
                        : fail("number out of range");
            }
            if (strict != null && Math.abs((long) number.scale()) > strict.maxNumberScale()) {
                throw refuse(RefusedJsonException.Reason.NUMBER_OUT_OF_RANGE, "");
            }
            return JSON.createValue(number);
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

    /** A JSON string of the text, written from its UTF-8 bytes when it holds them. */
    public static JsonString string(Utf8Text text) {
        return new Utf8JsonString(text);
    }

    /** The text of a JSON string: for a string this class read, the bytes it was read from. */
    public static Utf8Text text(JsonString value) {
        return value instanceof Utf8JsonString held ? held.text() : Utf8Text.of(value.getString());
    }

    // ------------------------------------------------------------------ writing

    /** The buffer {@link #write(JsonValue, OutputStream)} writes through. */
    static final int PIECE = 32 * 1024;

    /** The value as compact JSON in UTF-8. */
    public static byte[] write(JsonValue value) {
        Writer writer = new Writer(null, 256);
        writer.value(value);
        return writer.toByteArray();
    }

    /**
     * The value as compact JSON in UTF-8, written to {@code out} through a buffer of {@value #PIECE}
     * bytes (a run of text longer than that is written as it is): no array of the whole JSON is
     * made, and a text held as bytes (a file's, read whole) goes from them to the stream.
     */
    public static void write(JsonValue value, OutputStream out) throws IOException {
        Writer writer = new Writer(out, PIECE);
        try {
            writer.value(value);
            writer.flush();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static final class Writer {
        private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
        /** Where full buffers go; null: everything stays in the buffer, which grows. */
        private final OutputStream sink;
        private byte[] buf;
        private int count;

        Writer(OutputStream sink, int size) {
            this.sink = sink;
            this.buf = new byte[size];
        }

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
                case STRING -> {
                    if (value instanceof Utf8JsonString held && held.text().hasBytes()) {
                        Utf8Text text = held.text();
                        utf8(text.array(), text.offset(), text.offset() + text.length());
                    } else {
                        string(((JsonString) value).getString());
                    }
                }
                case NUMBER, TRUE, FALSE, NULL -> ascii(value.toString());
            }
        }

        /** A String's UTF-8 bytes (a lone surrogate as {@code ?}, as JSON-P's generator writes it). */
        private void string(String s) {
            byte[] text = s.getBytes(StandardCharsets.UTF_8);
            utf8(text, 0, text.length);
        }

        /**
         * UTF-8 text as a JSON string: the runs between the bytes to escape, found eight bytes at
         * a time ({@link Utf8Bytes}), are copied as they are. UTF-8's multi-byte sequences never
         * hold a byte to escape.
         */
        private void utf8(byte[] text, int from, int to) {
            reserve(to - from + 2 + ((to - from) >> 4));
            put('"');
            int run = from;
            for (int i = Utf8Bytes.firstJsonSpecial(text, from, to); i < to; i = Utf8Bytes.firstJsonSpecial(text, run, to)) {
                bytes(text, run, i);
                escape(text[i]);
                run = i + 1;
            }
            bytes(text, run, to);
            put('"');
        }

        /** A quote, a backslash or a control character, escaped as JSON-P's generator does. */
        private void escape(byte c) {
            switch (c) {
                case '"' -> escaped('"');
                case '\\' -> escaped('\\');
                case '\b' -> escaped('b');
                case '\f' -> escaped('f');
                case '\n' -> escaped('n');
                case '\r' -> escaped('r');
                case '\t' -> escaped('t');
                default -> {
                    put('\\');
                    put('u');
                    put('0');
                    put('0');
                    put((char) HEX[c >> 4]);
                    put((char) HEX[c & 0xF]);
                }
            }
        }

        private void escaped(char c) {
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
            if (n > buf.length - count) {
                if (sink == null) {
                    grow(n);
                } else {
                    flush();
                    if (n >= buf.length) {
                        // a run longer than a piece goes as it is
                        send(from, start, n);
                        return;
                    }
                }
            }
            System.arraycopy(from, start, buf, count, n);
            count += n;
        }

        private void put(char c) {
            if (count == buf.length) {
                if (sink == null) {
                    grow(1);
                } else {
                    flush();
                }
            }
            buf[count++] = (byte) c;
        }

        /** In memory, grows the buffer once for a long text rather than doubling as it is written. */
        private void reserve(int more) {
            if (sink == null && buf.length - count < more) {
                grow(more);
            }
        }

        private void grow(int more) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more + (count >> 3)));
        }

        void flush() {
            if (count > 0) {
                send(buf, 0, count);
                count = 0;
            }
        }

        private void send(byte[] bytes, int start, int n) {
            try {
                sink.write(bytes, start, n);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
