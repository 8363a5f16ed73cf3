package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Utf8Bytes}' word-at-a-time scans against byte loops and the JDK's strict UTF-8 decoder. */
class Utf8BytesTest {

    private static final CharsetDecoder STRICT = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    private static final CharBuffer CHARS = CharBuffer.allocate(256);

    private static boolean jdkAccepts(byte[] b, int from, int to) {
        if (to - from > CHARS.capacity()) {
            try {
                STRICT.reset().decode(ByteBuffer.wrap(b, from, to - from));
                return true;
            } catch (CharacterCodingException e) {
                return false;
            }
        }
        CoderResult result = STRICT.reset().decode(ByteBuffer.wrap(b, from, to - from), CHARS.clear(), true);
        return !result.isError() && !STRICT.flush(CHARS).isError();
    }

    @Test
    void shouldJudgeEveryTwoByteStartAsTheJdkDoes() {
        // every lead byte with every second byte, followed by continuation bytes or by nothing
        for (int lead = 0; lead < 256; lead++) {
            for (int second = 0; second < 256; second++) {
                byte[] padded = {(byte) lead, (byte) second, (byte) 0x80, (byte) 0x80, 'x'};
                for (int length : new int[] {2, 3, 4, 5}) {
                    int first = lead;
                    int next = second;
                    assertEquals(jdkAccepts(padded, 0, length), Utf8Bytes.isWellFormed(padded, 0, length),
                            () -> Integer.toHexString(first) + " " + Integer.toHexString(next) + " length " + length);
                }
            }
        }
    }

    @Test
    void shouldJudgeTheEdgesOfTheStandardAsTheJdkDoes() {
        String[] cases = {"", "41", "c280", "dfbf", "c080", "c1bf", "e0a080", "e09f80", "ed9fbf", "eda080", "edbfbf",
            "efbfbf", "f0908080", "f08fbfbf", "f48fbfbf", "f4908080", "f5808080", "ff", "80", "e282", "e282ac41",
            "f09f9880", "f09f98", "41424344454647c3a9", "4142434445464748c3", "41424344454647484950e282ac"};
        for (String hex : cases) {
            byte[] b = hex(hex);
            assertEquals(jdkAccepts(b, 0, b.length), Utf8Bytes.isWellFormed(b, 0, b.length), hex);
        }
    }

    @Test
    void shouldJudgeRandomTextAsTheJdkDoes() {
        Random random = new Random(16);
        String[] pieces = {"a", "bcdefgh", "\n", "\"", "\\", "é", "€", "😀", "中文", "\u0001"};
        for (int n = 0; n < 2000; n++) {
            StringBuilder text = new StringBuilder();
            for (int k = random.nextInt(40); k > 0; k--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            byte[] b = text.toString().getBytes(StandardCharsets.UTF_8);
            if (b.length > 0 && random.nextBoolean()) {
                b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            }
            int from = b.length == 0 ? 0 : random.nextInt(b.length);
            assertEquals(jdkAccepts(b, from, b.length), Utf8Bytes.isWellFormed(b, from, b.length), text.toString());
        }
    }

    @Test
    void shouldFindWhatAByteLoopFinds() {
        Random random = new Random(8);
        byte[] alphabet = {'a', 'z', ' ', '~', 0x7f, '"', '\\', '\n', '\r', 0, 0x1f, (byte) 0x80, (byte) 0xc3, (byte) 0xff};
        for (int n = 0; n < 3000; n++) {
            byte[] b = new byte[random.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                // mostly plain text, so that whole words are skipped as well as bytes looked at
                b[i] = random.nextInt(6) == 0 ? alphabet[random.nextInt(alphabet.length)] : (byte) ('a' + i % 26);
            }
            int from = b.length == 0 ? 0 : random.nextInt(b.length + 1);
            int to = from + random.nextInt(b.length - from + 1);
            assertEquals(loop(b, from, to, c -> c < 0), Utf8Bytes.firstNonAscii(b, from, to));
            assertEquals(loop(b, from, to, c -> c == '\r'), Utf8Bytes.indexOf(b, from, to, '\r'));
            assertEquals(loop(b, from, to, c -> c == '"' || c == '\\' || (c >= 0 && c < 0x20)),
                    Utf8Bytes.firstJsonSpecial(b, from, to));
        }
    }

    private interface ByteTest {
        boolean test(byte c);
    }

    private static int loop(byte[] b, int from, int to, ByteTest test) {
        for (int i = from; i < to; i++) {
            if (test.test(b[i])) {
                return i;
            }
        }
        return to;
    }

    private static byte[] hex(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
