package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link JsonBytes} against JSON-P's own reader and writer (Parsson), value for value and byte for byte. */
class JsonBytesTest {

    private static final JsonProvider JSON = JsonProvider.provider();

    private static final List<String> DOCUMENTS = List.of(
            "{}", "[]", "{\"a\":1}", " { \"a\" : [ 1 , -2.5e3 , 0.25 , true , false , null ] } ",
            "{\"action\":{\"action\":\"write\",\"args\":{\"path\":\"/workspace/a.txt\",\"content\":\"x\\ny\\n\"}}}",
            "\"esc: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0001 \\u00e9 \\u20ac \\ud83d\\ude00\"",
            "\"raw utf-8: é € 😀 中文\"", "[12345678901234567890, -0, 1E2, 1e-2, 123456789012345678]",
            "{\"dup\":1,\"dup\":2}", "[[[[[]]]]]", "{\"nested\":{\"deeper\":{\"k\":[{\"x\":\"y\"}]}}}",
            "\"lone \\ud800 high, \\udc00 low, \\ud800\\u0041 unpaired, pair \\ud83d\\ude00, ? and \u00ff\"",
            "[\"why? \u00e9\\n\", \"latin-1 \u00e9\u00ff only\", \"?\", \"\\u00e9\\u20ac escaped\", \"a\\\"b\"]");

    @Test
    void shouldReadWhatJsonpReads() {
        for (String doc : DOCUMENTS) {
            JsonValue expected = Json.createReader(new StringReader(doc)).readValue();
            assertEquals(expected, JsonBytes.read(doc.getBytes(StandardCharsets.UTF_8)), doc);
        }
    }

    @Test
    void shouldWriteWhatJsonpWrites() {
        for (String doc : DOCUMENTS) {
            JsonValue value = Json.createReader(new StringReader(doc)).readValue();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            Json.createWriter(expected).write(value);
            assertEquals(expected.toString(StandardCharsets.UTF_8),
                    new String(JsonBytes.write(value), StandardCharsets.UTF_8), doc);
        }
    }

    @Test
    void shouldEscapeEveryControlCharacterAsJsonpDoes() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x80; c++) {
            all.append(c);
        }
        all.append("é\u2028😀\u007f");
        JsonValue value = Json.createObjectBuilder().add("s", all.toString()).build();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        Json.createWriter(expected).write(value);
        byte[] written = JsonBytes.write(value);
        assertEquals(expected.toString(StandardCharsets.UTF_8), new String(written, StandardCharsets.UTF_8));
        assertEquals(value, JsonBytes.read(written));
    }

    @Test
    void shouldRoundTripOneMegabyteOfLines() {
        String big = ("x".repeat(1023) + "\n").repeat(1024);
        JsonObject value = Json.createObjectBuilder().add("content", big).build();
        byte[] written = JsonBytes.write(value);
        assertEquals(big.length() + 1024 + "{\"content\":\"\"}".length(), written.length);
        assertEquals(big, ((JsonObject) JsonBytes.read(written)).getString("content"));
    }

    /** Texts that end at, cross and follow word and piece boundaries, with every kind of escape. */
    private static List<String> trickyTexts() {
        List<String> texts = new ArrayList<>(List.of("", "a", "\"", "\\", "\u0000", "\u001f\u007f", "é", "€😀中文",
                "ab\"cdefgh\\ijklmnop\nq", "\r\n", "line\r\nnext\rlast\n", "tab\there\b\f", "/ and \\/ and ?",
                "\ud800 lone", "x".repeat(7) + "\n", "x".repeat(8) + "\"" + "y".repeat(9)));
        StringBuilder everyOffset = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            everyOffset.append("x".repeat(i)).append(i % 3 == 0 ? "\n" : i % 3 == 1 ? "\"é" : "\\\u0001");
        }
        texts.add(everyOffset.toString());
        texts.add("0123456789abcdef".repeat(JsonBytes.PIECE / 16 * 3 + 1) + "\n" + "z".repeat(JsonBytes.PIECE - 1));
        texts.add(("x".repeat(1023) + "\n").repeat(1024));
        return texts;
    }

    @Test
    void shouldReadTrickyStringsAsJsonpReads() {
        for (String text : trickyTexts()) {
            byte[] doc = Json.createObjectBuilder().add("content", text).add("after", "é\n").build().toString()
                    .getBytes(StandardCharsets.UTF_8);
            JsonValue expected = Json.createReader(new StringReader(new String(doc, StandardCharsets.UTF_8))).readValue();
            assertEquals(expected, JsonBytes.read(doc), text.length() < 200 ? text : "long text");
        }
    }

    @Test
    void shouldReadEscapesNextToMalformedBytesAsJsonpReadsTheDecodedDocument() {
        Random random = new Random(16);
        String[] pieces = {"a", "bcdefghij", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "é", "€"};
        for (int n = 0; n < 2000; n++) {
            ByteArrayOutputStream doc = new ByteArrayOutputStream();
            doc.writeBytes("{\"s\":\"".getBytes(StandardCharsets.UTF_8));
            for (int k = random.nextInt(12); k > 0; k--) {
                if (random.nextInt(5) == 0) {
                    doc.write(0x80 + random.nextInt(0x80));
                } else {
                    doc.writeBytes(pieces[random.nextInt(pieces.length)].getBytes(StandardCharsets.UTF_8));
                }
            }
            doc.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
            byte[] bytes = doc.toByteArray();
            String decoded = new String(bytes, StandardCharsets.UTF_8);
            assertEquals(JSON.createReader(new StringReader(decoded)).readValue(), JsonBytes.read(bytes), decoded);
        }
    }

    @Test
    void shouldWriteTextHeldAsBytesAsJsonpWritesItsString() throws Exception {
        for (String text : trickyTexts()) {
            String decoded = text;
            byte[] utf8 = decoded.getBytes(StandardCharsets.UTF_8);
            JsonObject expectedValue = Json.createObjectBuilder().add("content", decoded).add("n", 1).build();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            Json.createWriter(expected).write(expectedValue);
            // a lone surrogate has no UTF-8 form: that text can only be held as a String
            boolean encodable = new String(utf8, StandardCharsets.UTF_8).equals(decoded);
            Utf8Text asText = encodable ? Utf8Text.decode(utf8, 0, utf8.length) : Utf8Text.of(decoded);
            JsonValue held = JSON.createObjectBuilder().add("content", JsonBytes.string(asText)).add("n", 1).build();
            assertEquals(expected.toString(StandardCharsets.UTF_8), new String(JsonBytes.write(held), StandardCharsets.UTF_8));
            ByteArrayOutputStream streamed = new ByteArrayOutputStream();
            JsonBytes.write(held, streamed);
            assertEquals(expected.toString(StandardCharsets.UTF_8), streamed.toString(StandardCharsets.UTF_8));
            ByteArrayOutputStream fromString = new ByteArrayOutputStream();
            JsonBytes.write(expectedValue, fromString);
            assertEquals(expected.toString(StandardCharsets.UTF_8), fromString.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void shouldStreamThroughABufferOfAPiece() throws Exception {
        String big = ("x".repeat(1023) + "\n").repeat(1024);
        List<Integer> writes = new ArrayList<>();
        JsonBytes.write(Json.createObjectBuilder().add("content", big).build(), new OutputStream() {
            @Override
            public void write(int b) {
                writes.add(1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writes.add(len);
            }
        });
        assertEquals(big.length() + 1024 + "{\"content\":\"\"}".length(), writes.stream().mapToInt(Integer::intValue).sum());
        assertTrue(writes.stream().allMatch(n -> n <= JsonBytes.PIECE), writes.toString());
    }

    @Test
    void shouldKeepIntegersIntegralAndFractionsNot() {
        JsonObject o = (JsonObject) JsonBytes.read("{\"i\":7,\"l\":12345678901,\"f\":1.0,\"e\":1e2}"
                .getBytes(StandardCharsets.UTF_8));
        assertEquals(7, o.getJsonNumber("i").intValueExact());
        assertEquals(12345678901L, o.getJsonNumber("l").longValueExact());
        assertTrue(!o.getJsonNumber("f").isIntegral());
        JsonNumber e = o.getJsonNumber("e");
        assertEquals(100.0, e.doubleValue());
    }

    @Test
    void shouldSkipAByteOrderMark() {
        byte[] doc = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
        assertEquals(JsonValue.EMPTY_JSON_OBJECT, JsonBytes.read(doc));
    }

    @Test
    void shouldDecodeMalformedUtf8AsReplacementCharacters() {
        byte[] doc = {'"', 'a', (byte) 0xFF, 'b', '"'};
        assertEquals(Json.createValue("a\uFFFDb"), JsonBytes.read(doc));
    }

    @Test
    void shouldRefuseMalformedDocuments() {
        List<String> bad = List.of("", " ", "{", "}", "[1,]", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{\"a\":1,}",
                "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\u12zz\"", "01", "1.", ".5", "-", "1e",
                "+1", "tru", "nul", "falsey", "{} {}", "[1] x", "NaN", "'single'", "\"tab\there\"",
                "\"newline\nhere\"");
        for (String doc : bad) {
            JsonBytes.MalformedJsonException e = assertThrows(JsonBytes.MalformedJsonException.class,
                    () -> JsonBytes.read(doc.getBytes(StandardCharsets.UTF_8)), doc);
            assertTrue(e.getMessage().startsWith("The body is not valid JSON: "), e.getMessage());
        }
    }

    @Test
    void shouldRefuseNestingDeeperThanTheLimit() {
        String deep = "[".repeat(JsonBytes.MAX_DEPTH + 1) + "]".repeat(JsonBytes.MAX_DEPTH + 1);
        assertThrows(JsonBytes.MalformedJsonException.class, () -> JsonBytes.read(deep.getBytes(StandardCharsets.UTF_8)));
        String limit = "[".repeat(JsonBytes.MAX_DEPTH) + "]".repeat(JsonBytes.MAX_DEPTH);
        assertEquals(JsonValue.ValueType.ARRAY, JsonBytes.read(limit.getBytes(StandardCharsets.UTF_8)).getValueType());
    }

    @Test
    void shouldReadOnlyTheGivenLength() {
        byte[] doc = "{\"a\":1}garbage".getBytes(StandardCharsets.UTF_8);
        assertEquals(Json.createObjectBuilder().add("a", 1).build(), JsonBytes.read(doc, 7));
    }

    private static final JsonBytes.Strictness STRICT = new JsonBytes.Strictness(8, 40, 400);

    private static JsonBytes.RefusedJsonException.Reason refusedStrictly(String doc) {
        byte[] bytes = doc.getBytes(StandardCharsets.ISO_8859_1);
        return assertThrows(JsonBytes.RefusedJsonException.class, () -> JsonBytes.read(bytes, bytes.length, STRICT),
                doc).reason();
    }

    /** Strict or not, a document within the rules is the same value: the API's and the executor's reads agree. */
    @Test
    void shouldReadTheSameValueStrictlyWhereTheRulesAllow() {
        for (String doc : DOCUMENTS) {
            if (doc.contains("dup") || doc.contains("lone")) {
                continue;
            }
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            assertEquals(JsonBytes.read(bytes.clone()), JsonBytes.read(bytes, bytes.length, STRICT), doc);
        }
    }

    /**
     * What the API refuses beyond the grammar, each in the one pass (the reasons it names): read
     * leniently, as the executor does, each is a value.
     */
    @Test
    void shouldRefuseStrictlyWhatIsAmbiguousOrAbsurdAndTakeItLeniently() {
        assertEquals(JsonBytes.RefusedJsonException.Reason.DUPLICATE_NAME, refusedStrictly("{\"a\":{\"b\":1,\"b\":2}}"));
        assertEquals(JsonBytes.RefusedJsonException.Reason.LONE_SURROGATE, refusedStrictly("[\"/bin/r\\ud800\"]"));
        assertEquals(JsonBytes.RefusedJsonException.Reason.LONE_SURROGATE, refusedStrictly("{\"\\ud83d\\u0041\":1}"));
        assertEquals(JsonBytes.RefusedJsonException.Reason.MALFORMED_UTF8, refusedStrictly("[\"a\u00ffb\"]"));
        assertEquals(JsonBytes.RefusedJsonException.Reason.TOO_DEEP, refusedStrictly("[".repeat(9) + "]".repeat(9)));
        assertEquals(JsonBytes.RefusedJsonException.Reason.NUMBER_TOO_LONG, refusedStrictly("[" + "9".repeat(41) + "]"));
        assertEquals(JsonBytes.RefusedJsonException.Reason.NUMBER_OUT_OF_RANGE, refusedStrictly("[1e401]"));
        assertEquals(JsonBytes.RefusedJsonException.Reason.NUMBER_OUT_OF_RANGE, refusedStrictly("[1.5e-400]"));
        assertEquals("b", assertThrows(JsonBytes.RefusedJsonException.class, () -> JsonBytes.read(
                "{\"b\":1,\"b\":2}".getBytes(StandardCharsets.UTF_8), 13, STRICT)).subject());
        assertEquals("d800", assertThrows(JsonBytes.RefusedJsonException.class, () -> JsonBytes.read(
                "\"\\ud800\"".getBytes(StandardCharsets.UTF_8), 8, STRICT)).subject());

        assertEquals(Json.createObjectBuilder().add("b", 2).build(), JsonBytes.read("{\"b\":1,\"b\":2}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(JsonValue.ValueType.ARRAY, JsonBytes.read(("[" + "9".repeat(41) + ", 1e401]").getBytes(StandardCharsets.UTF_8))
                .getValueType());
        String limit = "[".repeat(8) + "]".repeat(8);
        assertEquals(JsonValue.ValueType.ARRAY, JsonBytes.read(limit.getBytes(StandardCharsets.UTF_8), limit.length(), STRICT)
                .getValueType());
    }

    /** An exponent past an int's range is malformed to the lenient reader and out of range to the strict one, never a NumberFormatException. */
    @Test
    void shouldRefuseAnExponentPastAnIntsRangeAsAnyMalformedDocument() {
        byte[] doc = "[1e99999999999]".getBytes(StandardCharsets.UTF_8);
        assertThrows(JsonBytes.MalformedJsonException.class, () -> JsonBytes.read(doc.clone()));
        assertEquals(JsonBytes.RefusedJsonException.Reason.NUMBER_OUT_OF_RANGE, refusedStrictly("[1e99999999999]"));
    }
}
