package dev.dockyard.executor.files;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streams parts out of a multipart/form-data body without holding it in memory
 * (uploads may be large zips): PROTOCOL.md's /upload_file takes one named part, envd's /files
 * any number of them, each read in turn.
 */
public final class MultipartFile {

    private static final Pattern BOUNDARY = Pattern.compile("boundary=\"?([^\";]+)\"?", Pattern.CASE_INSENSITIVE);
    private static final Pattern NAME = Pattern.compile("[; ]name=\"([^\"]*)\"", Pattern.CASE_INSENSITIVE);
    private static final Pattern FILENAME = Pattern.compile("filename=\"([^\"]*)\"", Pattern.CASE_INSENSITIVE);
    private static final int MAX_HEADER_BYTES = 16 * 1024;

    private final String name;
    private final String filename;
    private final InputStream content;

    private MultipartFile(String name, String filename, InputStream content) {
        this.name = name;
        this.filename = filename;
        this.content = content;
    }

    /** The part's name ({@code name="..."}), or null. */
    public String name() {
        return name;
    }

    /** The part's filename as sent, directories and all, or null. */
    public String filename() {
        return filename;
    }

    /** The part's bytes; ends at the part's boundary. */
    public InputStream content() {
        return content;
    }

    /**
     * Finds the part named {@code partName} in the body.
     *
     * @throws IllegalArgumentException when the body is not multipart or has no such part
     */
    public static MultipartFile find(String contentType, InputStream body, String partName) throws IOException {
        Parts parts = parts(contentType, body);
        for (MultipartFile part = parts.next(); part != null; part = parts.next()) {
            if (partName.equals(part.name())) {
                return part;
            }
        }
        throw new IllegalArgumentException("A multipart part named '" + partName + "' is required");
    }

    /**
     * The body's parts, one after another (envd's {@code /files} takes any number of files).
     *
     * @throws IllegalArgumentException when the body is not multipart or has no parts
     */
    public static Parts parts(String contentType, InputStream body) throws IOException {
        Matcher m = contentType == null ? null : BOUNDARY.matcher(contentType);
        if (m == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data") || !m.find()) {
            throw new IllegalArgumentException("Expected multipart/form-data with a boundary");
        }
        byte[] delimiter = ("\r\n--" + m.group(1)).getBytes(StandardCharsets.ISO_8859_1);
        PushbackInputStream in = new PushbackInputStream(body, PartStream.CHUNK + delimiter.length + 4);
        // the first boundary has no preceding CRLF
        in.unread(new byte[] {'\r', '\n'});
        if (!skipPast(in, delimiter)) {
            throw new IllegalArgumentException("The multipart body has no parts");
        }
        return new Parts(in, delimiter);
    }

    /** A multipart body read part by part; a part not read to its end is skipped by the next call. */
    public static final class Parts {
        private final PushbackInputStream in;
        private final byte[] delimiter;
        private PartStream current;
        private boolean ended;

        private Parts(PushbackInputStream in, byte[] delimiter) {
            this.in = in;
            this.delimiter = delimiter;
        }

        /** The next part, or null after the last one. */
        public MultipartFile next() throws IOException {
            if (ended) {
                return null;
            }
            if (current != null) {
                current.transferTo(OutputStreamNull.INSTANCE);
                if (!current.sawDelimiter) {
                    ended = true;
                    return null;
                }
            }
            byte[] after = in.readNBytes(2);
            if (after.length < 2 || (after[0] == '-' && after[1] == '-')) {
                ended = true;
                return null;
            }
            String headers = readHeaders(in);
            Matcher name = NAME.matcher(headers);
            Matcher file = FILENAME.matcher(headers);
            current = new PartStream(in, delimiter, true);
            return new MultipartFile(name.find() ? name.group(1) : null, file.find() ? file.group(1) : null, current);
        }
    }

    private static String readHeaders(PushbackInputStream in) throws IOException {
        ByteArrayOutputStream headers = new ByteArrayOutputStream();
        int state = 0;
        int b;
        while ((b = in.read()) >= 0) {
            headers.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) ? state + 1
                    : (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            if (state == 4) {
                return headers.toString(StandardCharsets.UTF_8);
            }
            if (headers.size() > MAX_HEADER_BYTES) {
                break;
            }
        }
        throw new IllegalArgumentException("Malformed multipart part headers");
    }

    private static boolean skipPast(PushbackInputStream in, byte[] delimiter) throws IOException {
        try (PartStream part = new PartStream(in, delimiter, false)) {
            part.transferTo(OutputStreamNull.INSTANCE);
            return part.sawDelimiter;
        }
    }

    /**
     * Bytes up to (not including) the delimiter; consumes the delimiter and gives back what was
     * read beyond it. Works a buffer at a time: no per-byte cost on large uploads.
     */
    private static final class PartStream extends InputStream {
        private static final int CHUNK = 64 * 1024;

        private final PushbackInputStream in;
        private final byte[] delimiter;
        private final byte[] buf;
        private int start;
        private int end;
        private boolean done;
        boolean sawDelimiter;
        /** A part's content (not the preamble): a body that ends inside it was cut short. */
        private final boolean content;

        PartStream(PushbackInputStream in, byte[] delimiter, boolean content) {
            this.in = in;
            this.delimiter = delimiter;
            this.content = content;
            this.buf = new byte[CHUNK + delimiter.length];
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (!done) {
                int at = indexOf(buf, start, end, delimiter);
                if (at == start) {
                    done = true;
                    sawDelimiter = true;
                    int after = at + delimiter.length;
                    if (after < end) {
                        in.unread(buf, after, end - after);
                    }
                    return -1;
                }
                int available = at >= 0 ? at - start : end - start - (delimiter.length - 1);
                if (available > 0) {
                    int n = Math.min(len, available);
                    System.arraycopy(buf, start, b, off, n);
                    start += n;
                    return n;
                }
                System.arraycopy(buf, start, buf, 0, end - start);
                end -= start;
                start = 0;
                int r = in.read(buf, end, buf.length - end);
                if (r < 0) {
                    if (content) {
                        // every part ends with a delimiter, the last one too: a body that ends before
                        // it was cut short (its client went away), and what came is not the whole file
                        throw new EOFException("The upload was cut short: the multipart body ended before the "
                                + "part's closing boundary");
                    }
                    // a preamble with no delimiter at all: the caller says the body has no parts
                    done = true;
                    int n = Math.min(len, end - start);
                    if (n <= 0) {
                        return -1;
                    }
                    System.arraycopy(buf, start, b, off, n);
                    start += n;
                    done = start >= end;
                    return n;
                }
                end += r;
            }
            return -1;
        }

        private static int indexOf(byte[] data, int from, int to, byte[] pattern) {
            outer:
            for (int i = from; i <= to - pattern.length; i++) {
                for (int j = 0; j < pattern.length; j++) {
                    if (data[i + j] != pattern[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }

        @Override
        public void close() {
            // the underlying body belongs to the request
        }
    }

    private static final class OutputStreamNull extends OutputStream {
        static final OutputStreamNull INSTANCE = new OutputStreamNull();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }
}
