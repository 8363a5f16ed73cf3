package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonBodyReaderTest {

    private final JsonBodyReader reader = new JsonBodyReader(new InputLimits(1000, 8));

    private JsonValue read(Class<?> type, String body) throws IOException {
        return reader.read(type, null, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    private Problem refusal(Class<?> type, String body) {
        return assertThrows(Problem.ProblemException.class, () -> read(type, body)).problem();
    }

    @Test
    void shouldReadAnObject() throws IOException {
        JsonObject body = (JsonObject) read(JsonObject.class, "{\"a\": [1, {\"b\": null}], \"c\": 1.5e3}");
        assertEquals(1500.0, body.getJsonNumber("c").doubleValue());
    }

    /** Built in the same pass that checks it: the very value a JSON-P reader gives, members in order. */
    @Test
    void shouldBuildTheValueAReaderWould() throws IOException {
        String body = "{\"action\": \"run\", \"args\": {\"command\": \"ls \\\"a b\\\"\", \"timeout\": 30, "
                + "\"blocking\": true, \"is_input\": false, \"thought\": null, \"limits\": [1, -2.5, 1e2, "
                + "12345678901234567890, [], {}, [{\"x\": \"\\u00e9\"}]]}, \"z\": {}}";
        JsonValue built = read(JsonObject.class, body);
        try (JsonReader json = Json.createReader(new StringReader(body))) {
            JsonValue read = json.readValue();
            assertEquals(read, built);
            assertEquals(read.toString(), built.toString());
        }
        for (String other : new String[] {"[1, [2, {\"a\": [true]}], {}]", "\"text\"", "42", "-0.5e-3", "true", "null"}) {
            try (JsonReader json = Json.createReader(new StringReader(other))) {
                assertEquals(json.readValue(), read(JsonValue.class, other), other);
            }
        }
        for (String cut : new String[] {"{\"a\":[1", "{\"a\":", "[1,", "{\"a\":1}}", "{} {}", "[1] 2"}) {
            assertEquals("The body is not valid JSON", refusal(JsonValue.class, cut).detail(), cut);
        }
        assertEquals(JsonValue.ValueType.NUMBER, ((JsonObject) built).getJsonObject("args").get("timeout").getValueType());
        assertTrue(((JsonObject) built).getJsonObject("args").getJsonNumber("timeout").isIntegral());
    }

    @Test
    void shouldAnswerNullForAnEmptyBody() throws IOException {
        assertNull(read(JsonObject.class, ""));
        assertNull(read(JsonObject.class, "  \n"));
    }

    @Test
    void shouldRefuseAnArrayWhereAnObjectIsExpected() {
        Problem p = refusal(JsonObject.class, "[1,2,3]");
        assertEquals(400, p.kind().status());
        assertEquals("The body must be a JSON object, not an array", p.detail());
        assertTrue(refusal(JsonObject.class, "[]").detail().contains("not an array"));
        assertTrue(refusal(JsonObject.class, "\"text\"").detail().contains("not a string"));
        assertTrue(refusal(JsonObject.class, "42").detail().contains("not a number"));
        assertTrue(refusal(JsonObject.class, "null").detail().contains("not null"));
        assertTrue(refusal(JsonArray.class, "{}").detail().contains("not an object"));
    }

    @Test
    void shouldRefuseNestingDeeperThanTheLimitBeforeBuildingAnything() {
        assertEquals(1, ((JsonArray) readArray("[".repeat(8) + "]".repeat(8))).size());
        assertTrue(refusal(JsonArray.class, "[".repeat(9) + "]".repeat(9)).detail().contains("deeper than 8"));
        String deep = "[".repeat(20_000) + "]".repeat(20_000);
        Problem p = assertThrows(Problem.ProblemException.class, () -> new JsonBodyReader(new InputLimits(100_000, 8))
                .read(JsonObject.class, null, new ByteArrayInputStream(deep.getBytes(StandardCharsets.UTF_8)))).problem();
        assertTrue(p.detail().contains("deeper than 8"), p.detail());
    }

    private JsonValue readArray(String body) {
        try {
            return read(JsonArray.class, body);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldAnswer413PastTheLimitWithoutReadingTheRest() {
        int[] served = {0};
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                served[0]++;
                return ' ';
            }
        };
        Problem p = assertThrows(Problem.ProblemException.class, () -> reader.read(JsonObject.class, null, endless))
                .problem();
        assertEquals(413, p.kind().status());
        assertTrue(served[0] < 1000 + 8192 * 2, "read " + served[0]);
        assertEquals(413, assertThrows(Problem.ProblemException.class,
                () -> reader.read(JsonObject.class, "20000000", InputStream.nullInputStream())).problem().kind().status());
    }

    @Test
    void shouldRefuseInvalidUtf8() {
        byte[] bad = {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'};
        Problem p = assertThrows(Problem.ProblemException.class,
                () -> reader.read(JsonObject.class, null, new ByteArrayInputStream(bad))).problem();
        assertEquals("The body is not valid UTF-8", p.detail());
    }

    /** With a Content-Length, the body read as that many bytes: kept as they came for the resource that asks. */
    @Test
    void shouldReadADeclaredLengthAndKeepTheBytesAsTheyCame() throws IOException {
        byte[] body = "{\"action\": \"write\", \"args\": {\"content\": \"Grüße \\u00e9\"}}".getBytes(StandardCharsets.UTF_8);
        JsonBodyReader.ObjectBody read = reader.readObject(String.valueOf(body.length), new ByteArrayInputStream(body));
        assertEquals("Grüße é", read.object().getJsonObject("args").getString("content"));
        assertTrue(Arrays.equals(body, read.utf8()), "the bytes as sent, escapes and spacing kept");
        assertNull(reader.readObject("0", InputStream.nullInputStream()));
        assertEquals("The body must be a JSON object, not an array", assertThrows(Problem.ProblemException.class,
                () -> reader.readObject("3", new ByteArrayInputStream("[1]".getBytes(StandardCharsets.UTF_8))))
                .problem().detail());
    }

    @Test
    void shouldRefuseABodyThatGoesOnPastItsDeclaredLengthOrEndsBeforeIt() {
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        assertEquals("The body is longer than its Content-Length", assertThrows(Problem.ProblemException.class,
                () -> reader.read(JsonObject.class, "3", new ByteArrayInputStream(body))).problem().detail());
        assertEquals("The body is shorter than its Content-Length", assertThrows(Problem.ProblemException.class,
                () -> reader.read(JsonObject.class, "20", new ByteArrayInputStream(body))).problem().detail());
        assertEquals(1, ((JsonObject) assertDoesNotThrow(() -> reader.read(JsonObject.class, "7,7",
                new ByteArrayInputStream(body)))).getInt("a"), "a length sent twice, as HTTP/2 may give it");
    }

    /** An escaped surrogate pair is a character; a lone one is none, and every reader may take it differently. */
    @Test
    void shouldRefuseALoneSurrogateAndTakeAPair() throws IOException {
        assertEquals("😀", ((JsonObject) read(JsonObject.class, "{\"a\": \"\\ud83d\\ude00\"}")).getString("a"));
        assertEquals("A string in the body holds a lone surrogate (\\ud800), which is no character",
                refusal(JsonObject.class, "{\"command\": \"/bin/r\\ud800 -rf /\"}").detail());
        assertEquals("A string in the body holds a lone surrogate (\\ude00), which is no character",
                refusal(JsonObject.class, "{\"\\ude00\": 1}").detail(), "in a name too");
        assertTrue(refusal(JsonObject.class, "{\"a\": [\"x\\ud83d\"]}").detail().contains("lone surrogate"),
                "a high one at the end");
    }

    /** ASCII is read as it is; anything else through the strict decoder, as before. */
    @Test
    void shouldReadAsciiAndUtf8AlikeAndRefuseWhatIsNeither() {
        assertEquals("plain", JsonBodyReader.utf8("plain".getBytes(StandardCharsets.UTF_8)));
        assertEquals("Grüße, 世界 😀", JsonBodyReader.utf8("Grüße, 世界 😀".getBytes(StandardCharsets.UTF_8)));
        byte[] latin1 = "Grüße".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("The body is not valid UTF-8", assertThrows(Problem.ProblemException.class,
                () -> JsonBodyReader.utf8(latin1)).problem().detail());
    }

    @Test
    void shouldRefuseDuplicateMembersMalformedJsonAndAbsurdNumbers() {
        assertTrue(refusal(JsonObject.class, "{\"a\":1,\"a\":2}").detail().contains("'a' appears twice"));
        assertEquals("The body is not valid JSON", refusal(JsonObject.class, "{not json").detail());
        assertEquals("The body is not valid JSON", refusal(JsonObject.class, "{} {}").detail());
        assertEquals("The body is not valid JSON", refusal(JsonObject.class, "{\"a\":1,}").detail());
        assertTrue(refusal(JsonObject.class, "{\"a\":1e999999999}").detail().contains("out of range"));
        assertTrue(refusal(JsonObject.class, "{\"a\":" + "9".repeat(50) + "}").detail().contains("characters"));
        assertEquals("A number in the body is out of range", refusal(JsonObject.class, "{\"a\":1e99999999999}").detail(),
                "an exponent past an int's range");
        assertTrue(refusal(JsonObject.class, "{\"a\":{\"b\":1,\"b\":2}}").detail().contains("'b' appears twice"),
                "in a nested object");
    }

    /** Which rule a body broke is said though it breaks the grammar too, as a reader of the decoded text said. */
    @Test
    void shouldSayABodyIsNotUtf8BeforeAnythingElseItBreaks() {
        byte[] body = "{\"a\":1,\"a\":\"Gr\u00fc\u00dfe\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("The body is not valid UTF-8", assertThrows(Problem.ProblemException.class,
                () -> reader.read(JsonObject.class, null, new ByteArrayInputStream(body))).problem().detail());
        byte[] outside = "{\u00ff}".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("The body is not valid UTF-8", assertThrows(Problem.ProblemException.class,
                () -> reader.read(JsonObject.class, null, new ByteArrayInputStream(outside))).problem().detail());
        assertEquals("The body is not valid JSON", refusal(JsonObject.class, "{\u00e9}").detail());
    }

    @Test
    void shouldNamePerUnknownFieldTheNearestKnownOne() {
        Problem p = assertThrows(Problem.ProblemException.class, () -> JsonFields.requireOnly(
                (JsonObject) read(JsonObject.class, "{\"memoryMB\":1,\"zzz\":2,\"cpu\":1}"),
                Set.of("memoryMb", "cpus"), "sandbox")).problem();
        assertTrue(p.detail().startsWith("Unknown fields sandbox.cpu (did you mean sandbox.cpus?), "
                + "sandbox.memoryMB (did you mean sandbox.memoryMb?), sandbox.zzz;"), p.detail());
        assertEquals("[\"sandbox.cpu\",\"sandbox.memoryMB\",\"sandbox.zzz\"]", p.toJson().get("unknownFields").toString());
    }

    @Test
    void shouldCutAChunkedBodyOffAtTheLimitAndTakeAnUnreadableOneAsTheCallersError() {
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                return 'x';
            }
        };
        BodyLimitFilter.Bounded bounded = new BodyLimitFilter.Bounded(endless, 100);
        assertEquals(413, assertThrows(Problem.ProblemException.class, () -> bounded.readNBytes(1000)).problem()
                .kind().status());
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Illegal chunk length digit");
            }
        };
        Problem p = assertThrows(Problem.ProblemException.class,
                () -> new BodyLimitFilter.Bounded(broken, 100).read(new byte[10], 0, 10)).problem();
        assertEquals(400, p.kind().status());
        assertTrue(p.detail().startsWith("The body could not be read"), p.detail());
    }
}
