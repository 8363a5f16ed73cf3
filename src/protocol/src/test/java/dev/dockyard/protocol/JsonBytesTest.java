package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JsonBytes} against JSON-P's own reader and writer (Parsson), value for value and byte for byte. */
class JsonBytesTest {

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
}
