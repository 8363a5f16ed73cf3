package dev.dockyard.protocol;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A text of the protocol held either as a {@link String} or as well-formed UTF-8 bytes, the other
 * form made only when asked for.
 *
 * <p>Why: a file's content goes from a request's JSON into the file ({@code write}) and from the
 * file into an answer's JSON ({@code read}); both ends are UTF-8 bytes. A String between them
 * costs a scan and a copy of the whole text each way (decode, encode, escape), which on the
 * executor's C1-only JVM was most of the time of a 1 MB {@code write} or {@code read}, and a few
 * megabytes of garbage. Text made from bytes ({@link #decode}) is a view of the array it was
 * given: nobody may change that array afterwards.
 *
 * <p>Two texts are equal when their characters are, whichever form they are held in.
 */
public final class Utf8Text {

    public static final Utf8Text EMPTY = of("");

    private final byte[] bytes;
    private final int offset;
    private final int length;
    /** Made once when asked for (two threads may both make it: equal Strings, no harm). */
    private String string;

    private Utf8Text(String string, byte[] bytes, int offset, int length) {
        this.string = string;
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
    }

    public static Utf8Text of(String text) {
        return new Utf8Text(Objects.requireNonNull(text, "text"), null, 0, 0);
    }

    /**
     * The text of {@code bytes[offset, offset + length)}, strictly decoded (as Python's {@code utf-8}
     * codec does): malformed UTF-8 throws. The bytes are checked, not copied.
     */
    public static Utf8Text decode(byte[] bytes, int offset, int length) throws MalformedInputException {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        if (!Utf8Bytes.isWellFormed(bytes, offset, offset + length)) {
            throw new MalformedInputException(1);
        }
        return new Utf8Text(null, bytes, offset, length);
    }

    /** Bytes a caller of this package has checked to be well-formed. */
    static Utf8Text wellFormed(byte[] bytes, int offset, int length) {
        return new Utf8Text(null, bytes, offset, length);
    }

    /** Whether the text is held as UTF-8 bytes ({@link #array}, {@link #offset}, {@link #length}). */
    boolean hasBytes() {
        return bytes != null;
    }

    byte[] array() {
        return bytes;
    }

    int offset() {
        return offset;
    }

    int length() {
        return length;
    }

    public boolean isEmpty() {
        return bytes != null ? length == 0 : string.isEmpty();
    }

    /** Whether the text holds the ASCII character {@code c}. */
    public boolean contains(char c) {
        return bytes != null ? Utf8Bytes.indexOf(bytes, offset, offset + length, c) < offset + length
                : string.indexOf(c) >= 0;
    }

    /** Writes the text as UTF-8: its own bytes when it has them. */
    public void writeTo(OutputStream out) throws IOException {
        if (bytes != null) {
            out.write(bytes, offset, length);
        } else {
            out.write(string.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public String toString() {
        String s = string;
        if (s == null) {
            s = new String(bytes, offset, length, StandardCharsets.UTF_8);
            string = s;
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Utf8Text other)) {
            return false;
        }
        if (bytes != null && other.bytes != null) {
            // well-formed UTF-8 and the characters it stands for determine each other
            return Arrays.equals(bytes, offset, offset + length, other.bytes, other.offset, other.offset + other.length);
        }
        return toString().equals(other.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }
}
