package dev.dockyard.api;

import dev.dockyard.http.DeclaredBodies;
import dev.dockyard.protocol.InvalidActionException;
import dev.dockyard.protocol.JsonBytes;
import dev.dockyard.protocol.JsonBytes.RefusedJsonException;
import dev.dockyard.protocol.JsonBytes.Strictness;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.Provider;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one way a JSON request body enters the API (both JAX-RS applications register it, and an
 * application's own provider wins over Liberty's built-in JSON-P one). It reads at most
 * {@link InputLimits#maxBodyBytes()} (413 past that, judged first on Content-Length, then while
 * reading), insists on UTF-8, walks the bytes once with a bounded nesting depth, refuses
 * duplicate member names (which of two values a check saw would be ambiguous) and absurd numbers
 * as it builds the value, which is answered only once the whole body passed and must be of the
 * declared type ({@code [1,2,3]} where an object is expected is a 400, not a ClassCastException).
 * Every refusal is a problem, never a 500.
 */
@Provider
@Consumes({MediaType.APPLICATION_JSON, "application/*+json", "text/json"})
public class JsonBodyReader implements MessageBodyReader<JsonValue> {

    /** Longest number literal taken: a double's digits and exponent fit well inside. */
    private static final int MAX_NUMBER_CHARS = 40;
    /** Largest decimal exponent taken: beyond a double's range, so nothing real is refused. */
    private static final int MAX_NUMBER_SCALE = 400;
    private static final String UTF8 = "The body is not valid UTF-8";
    private static final int CHUNK = 8192;
    /** The longest body given one allocation of its announced length before a byte of it came. */
    private static final int PRESIZED_BODY = 8 * 1024 * 1024;

    @Inject
    InputLimits limits;

    public JsonBodyReader() {
    }

    JsonBodyReader(InputLimits limits) {
        this.limits = limits;
    }

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return JsonValue.class.isAssignableFrom(type);
    }

    @Override
    public JsonValue readFrom(Class<JsonValue> type, Type genericType, Annotation[] annotations, MediaType mediaType,
                              MultivaluedMap<String, String> headers, InputStream body) throws IOException {
        return read(type, headers == null ? null : headers.getFirst(HttpHeaders.CONTENT_LENGTH), body);
    }

    /** The body as a value of {@code type}; null when there is none (the resource says what it needs). */
    JsonValue read(Class<?> type, String contentLength, InputStream body) throws IOException {
        byte[] bytes = bytes(contentLength, body);
        return value(type, bytes);
    }

    /**
     * A JSON object body and the bytes it came as, for a resource that passes the object on as it
     * came (an action to its sandbox's executor): checked as every body is; null when there is none.
     */
    public record ObjectBody(JsonObject object, byte[] utf8) {
    }

    /** The body as an {@link ObjectBody}: checked as {@link #read} checks, the bytes kept. */
    ObjectBody readObject(String contentLength, InputStream body) throws IOException {
        byte[] bytes = bytes(contentLength, body);
        JsonObject object = (JsonObject) value(JsonObject.class, bytes);
        return object == null ? null : new ObjectBody(object, bytes);
    }

    /** The body's bytes, at most the limit: refused early on a declared length past it. */
    private byte[] bytes(String contentLength, InputStream body) throws IOException {
        int max = limits.maxBodyBytes();
        long declared = contentLength == null ? -1 : declaredLength(contentLength);
        if (declared > max) {
            throw tooLarge(max);
        }
        return declared >= 0 ? readDeclared(body, (int) declared) : readAtMost(body, max);
    }

    private JsonValue value(Class<?> type, byte[] bytes) {
        if (isBlank(bytes)) {
            return null;
        }
        JsonValue value = parse(bytes);
        if (JsonObject.class.equals(type) && value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw invalid("The body must be a JSON object, not " + article(value.getValueType()));
        }
        if (JsonArray.class.equals(type) && value.getValueType() != JsonValue.ValueType.ARRAY) {
            throw invalid("The body must be a JSON array, not " + article(value.getValueType()));
        }
        return value;
    }

    /**
     * One pass over the bytes ({@link JsonBytes}' strict read), checking UTF-8, depth, duplicate
     * names, lone surrogates and numbers as it builds the value. JSON-P's parser, which did this
     * before, read the text a character at a time: half of what a 1 MB file write through the API
     * cost beyond the executor's own time (JFR, 2026-12-01). The strict read resolves escapes in
     * place, so it is given a copy: the caller's bytes go on to the executor as they came.
     */
    private JsonValue parse(byte[] bytes) {
        Strictness strictness = new Strictness(limits.maxDepth(), MAX_NUMBER_CHARS, MAX_NUMBER_SCALE);
        try {
            return JsonBytes.read(bytes.clone(), bytes.length, strictness);
        } catch (RefusedJsonException e) {
            throw invalid(notUtf8(bytes) ? UTF8 : switch (e.reason()) {
                case MALFORMED_UTF8 -> UTF8;
                case LONE_SURROGATE -> "A string in the body holds a lone surrogate (\\u" + e.subject()
                        + "), which is no character";
                case DUPLICATE_NAME -> "The member '" + printable(e.subject()) + "' appears twice in one object";
                case TOO_DEEP -> "The body nests deeper than " + e.subject() + " levels";
                case NUMBER_TOO_LONG -> "A number in the body has more than " + MAX_NUMBER_CHARS + " characters";
                case NUMBER_OUT_OF_RANGE -> "A number in the body is out of range";
            });
        } catch (InvalidActionException e) {
            // malformed: that the bytes are not UTF-8 at all says more
            throw invalid(notUtf8(bytes) ? UTF8 : "The body is not valid JSON");
        }
    }

    /** Whitespace only, as {@link String#isBlank()} would say of its text (non-ASCII bytes are JSON's to judge). */
    private static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0 || !Character.isWhitespace(b)) {
                return false;
            }
        }
        return true;
    }

    /** Asked only of a refused body: a whole pass over it. */
    private static boolean notUtf8(byte[] bytes) {
        try {
            utf8(bytes);
            return false;
        } catch (Problem.ProblemException e) {
            return true;
        }
    }

    private static byte[] readAtMost(InputStream in, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(max, CHUNK));
        byte[] chunk = new byte[CHUNK];
        int total = 0;
        for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
            total += n;
            if (total > max) {
                // stop here: the rest is never read (the connection is closed with the answer)
                throw tooLarge(max);
            }
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }

    /**
     * A body of declared length read into one array of that length (the limit was checked: 2 MB by
     * default; an announced length past {@link #PRESIZED_BODY} is read as it comes). One that ends
     * short is the caller's 400, as is one that goes on past it: a transport holds a body to its
     * declared length.
     */
    private static byte[] readDeclared(InputStream in, int declared) throws IOException {
        byte[] bytes;
        try {
            bytes = DeclaredBodies.read(in, declared, PRESIZED_BODY);
        } catch (IOException e) {
            throw invalid("The body is shorter than its Content-Length");
        }
        if (in.read() >= 0) {
            throw invalid("The body is longer than its Content-Length");
        }
        return bytes;
    }

    /**
     * The body as text, refused unless it is UTF-8 (asked of a body refused, to say whether that
     * is why). An ASCII body is read as it is, without the decoder's intermediate array of chars.
     */
    static String utf8(byte[] bytes) {
        if (isAscii(bytes)) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw invalid(UTF8);
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /** The declared length, -1 when it cannot be read (the transport checked it; reading stays bounded anyway). */
    private static long declaredLength(String contentLength) {
        try {
            return Long.parseLong(contentLength.split(",")[0].strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String article(JsonValue.ValueType type) {
        return switch (type) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case NULL -> "null";
            case TRUE, FALSE -> "a boolean";
        };
    }

    /** A member name fit to echo: at most 60 characters, controls shown as '?'. */
    static String printable(String text) {
        String cut = text.length() > 60 ? text.substring(0, 60) + "…" : text;
        StringBuilder out = new StringBuilder(cut.length());
        cut.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) || SafeIds.isBidiControl(c)
                || Character.getType(c) == Character.SURROGATE ? '?' : c));
        return out.toString();
    }

    private static Problem.ProblemException tooLarge(int max) {
        return BodyLimitFilter.tooLarge(max).toException();
    }

    /** A body some resource read as text, checked like any other: depth, names, numbers, an object. */
    static JsonObject object(String text, InputLimits limits) {
        try {
            return (JsonObject) new JsonBodyReader(limits).read(JsonObject.class, null,
                    new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw invalid("The body could not be read");
        }
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
