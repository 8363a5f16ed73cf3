package dev.dockyard.executor.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a file is binary, as OpenHands decides it before every {@code read} and openhands-aci
 * before every edit: binaryornot 0.4.4's {@code is_binary}, which looks at the first 1024 bytes
 * only. Mostly control characters is binary; else a chunk that chardet 5.2 confidently
 * (above 0.9) names an encoding other than ASCII, and that decodes in it, is text; else a chunk
 * that looks binary by its share of control and high bytes, or that holds a NUL or 0xFF, is
 * binary. So PNG, JPEG, GIF, MP4 and most other media are binary, a text file with a NUL after
 * its first kilobyte is not, and a UTF-16 file with a byte-order mark is text.
 *
 * <p>chardet is approximated by what decides these cases: its byte-order marks (UTF-8, UTF-16,
 * UTF-32; the unusual UCS-4 orders name codecs Python does not have) and its UTF-8 prober (valid
 * UTF-8 with at least four multi-byte characters is above 0.9). Its guesses of legacy encodings
 * (Latin-1, Shift-JIS...) for a chunk holding NUL or 0xFF are not reproduced: such a chunk is
 * binary here, where chardet may rarely call it text.
 */
final class BinaryOrNot {

    static final int CHUNK = 1024;

    private BinaryOrNot() {
    }

    /**
     * binaryornot's {@code is_binary(path)}: a path ending in {@code .pyc} is binary without a
     * look. A file that cannot be opened (missing, a directory, unreadable) is not binary, as
     * binaryornot answers after printing the error; neither is anything but a regular file, which
     * reading could block on or never finish.
     */
    static boolean isBinary(Path file) {
        if (isBinaryName(file)) {
            return true;
        }
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try (InputStream in = Files.newInputStream(file)) {
            return isBinary(in.readNBytes(CHUNK));
        } catch (IOException e) {
            return false;
        }
    }

    /** binaryornot 0.4.4 takes a {@code .pyc} path for binary before it opens anything. */
    static boolean isBinaryName(Path file) {
        return file.toString().endsWith(".pyc");
    }

    /** binaryornot's {@code is_binary_string} of a starting chunk. */
    static boolean isBinary(byte[] chunk) {
        if (chunk.length == 0) {
            return false;
        }
        int control = 0;
        int low = 0;
        boolean nulOrFf = false;
        for (byte b : chunk) {
            int v = b & 0xff;
            boolean printable = v >= 32 && v < 127 || v == '\n' || v == '\r' || v == '\t' || v == '\f' || v == '\b';
            if (!printable) {
                control++;
            }
            if (v < 127) {
                low++;
            }
            nulOrFf |= v == 0 || v == 0xff;
        }
        double nonText = (double) control / chunk.length;
        double notHigh = (double) low / chunk.length;
        if (nonText > 0.90 && notHigh > 0.90) {
            return true;
        }
        boolean likelyBinary = nonText > 0.3 && notHigh < 0.05 || nonText > 0.8 && notHigh > 0.8;
        boolean decodable = confidentlyDecodable(chunk);
        if (likelyBinary) {
            return !decodable;
        }
        return !decodable && nulOrFf;
    }

    /** chardet's confident guess (above 0.9, not ASCII) decodes the chunk. */
    static boolean confidentlyDecodable(byte[] chunk) {
        if (startsWith(chunk, 0xef, 0xbb, 0xbf)) {
            return decodes(StandardCharsets.UTF_8, chunk, 3);
        }
        if (startsWith(chunk, 0xff, 0xfe, 0, 0) || startsWith(chunk, 0, 0, 0xfe, 0xff)) {
            return chunk.length % 4 == 0 && decodes(Charset.forName(chunk[0] == 0 ? "UTF-32BE" : "UTF-32LE"), chunk, 4);
        }
        if (startsWith(chunk, 0xfe, 0xff, 0, 0) || startsWith(chunk, 0, 0, 0xff, 0xfe)) {
            return false;
        }
        if (startsWith(chunk, 0xff, 0xfe) || startsWith(chunk, 0xfe, 0xff)) {
            return chunk.length % 2 == 0 && decodes(chunk[0] == (byte) 0xff ? StandardCharsets.UTF_16LE
                    : StandardCharsets.UTF_16BE, chunk, 2);
        }
        int multiByte = 0;
        for (byte b : chunk) {
            // a lead byte starts a multi-byte character; continuation bytes are 10xxxxxx
            if ((b & 0xc0) == 0xc0) {
                multiByte++;
            }
        }
        return multiByte >= 4 && decodes(StandardCharsets.UTF_8, chunk, 0);
    }

    private static boolean startsWith(byte[] chunk, int... prefix) {
        if (chunk.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if ((chunk[i] & 0xff) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean decodes(Charset charset, byte[] chunk, int from) {
        try {
            charset.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(chunk, from, chunk.length - from));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
