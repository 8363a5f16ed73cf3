package dev.dockyard.executor.files;

import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.FileReadAction;
import dev.dockyard.protocol.FileReadObservation;
import dev.dockyard.protocol.FileWriteAction;
import dev.dockyard.protocol.FileWriteObservation;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.Utf8Bytes;
import dev.dockyard.protocol.Utf8Text;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code read} and {@code write} as OpenHands' {@code ActionExecutor.read} and {@code write} do
 * them: relative paths start at the shell's working directory, texts show the path as Python's
 * {@code pathlib} joins it ({@code ..} kept; the file used is the normalised one the
 * {@link PathGuard} let through), the binary check comes first ({@link BinaryOrNot}), images,
 * PDFs and videos that pass it are read as data URLs, text is read with Python's universal
 * newlines ({@code \r\n} and {@code \r} read as {@code \n}, and a line range written back with
 * {@code \n}), lines are selected and replaced with OpenHands' {@code read_lines} and
 * {@code insert_lines} rules, and the error texts are the ones agents were trained on.
 */
public final class FileActions {

    private final PathGuard guard;

    public FileActions(PathGuard guard) {
        this.guard = guard;
    }

    private static final int CHECK_BUFFER = 64 * 1024;

    /** Larger files are refused rather than pulled into an observation. */
    public static final long MAX_FILE_BYTES = 10L * 1024 * 1024;

    /** OpenHands' extensions, with the type Python's {@code mimetypes} gives them. */
    private static final Map<String, String> MEDIA_TYPES = Map.of(
            ".png", "image/png", ".jpg", "image/jpeg", ".jpeg", "image/jpeg", ".bmp", "image/bmp",
            ".gif", "image/gif", ".pdf", "application/pdf", ".mp4", "video/mp4", ".webm", "video/webm",
            ".ogg", "audio/ogg");

    public Observation read(FileReadAction action, Path workingDir) {
        try {
            return read(guard.check(action.path(), workingDir), shownPath(action.path(), workingDir), action,
                    workingDir);
        } catch (PathGuard.PathRefusedException e) {
            return ErrorObservation.of(e.getMessage());
        }
    }

    /** The path as OpenHands' {@code _resolve_path} writes it: {@code str(Path(working_dir) / path)}. */
    static String shownPath(String requested, Path workingDir) {
        return FileEditor.pathlib(requested.startsWith("/") ? requested : workingDir + "/" + requested);
    }

    private Observation read(Path file, String shown, FileReadAction action, Path workingDir) {
        try {
            // OpenHands' binary check comes first; a directory or a missing file is never binary to
            // it, and a file read whole is checked on its own first kilobyte (no second open)
            if (BinaryOrNot.isBinaryName(file)) {
                return ErrorObservation.of("ERROR_BINARY_FILE");
            }
            if (Files.isDirectory(file)) {
                return ErrorObservation.of("Path is a directory: " + shown + ". You can only read files");
            }
            if (!Files.exists(file)) {
                return ErrorObservation.of("File not found: " + shown + ". Your current working directory is "
                        + workingDir + ".");
            }
            if (Files.size(file) > MAX_FILE_BYTES) {
                return ErrorObservation.of(BinaryOrNot.isBinary(file) ? "ERROR_BINARY_FILE" : "File too large: "
                        + shown + " is over 10 MB. Read it in parts with the shell (e.g. head, sed -n) instead.");
            }
            byte[] bytes = Files.readAllBytes(file);
            if (BinaryOrNot.isBinary(bytes.length <= BinaryOrNot.CHUNK ? bytes
                    : Arrays.copyOf(bytes, BinaryOrNot.CHUNK))) {
                return ErrorObservation.of("ERROR_BINARY_FILE");
            }
            String mediaType = mediaType(shown);
            if (mediaType != null) {
                return new FileReadObservation("data:" + mediaType + ";base64,"
                        + Base64.getEncoder().encodeToString(bytes), shown, "default");
            }
            Utf8Text text;
            try {
                text = readText(bytes);
            } catch (CharacterCodingException e) {
                return ErrorObservation.of("File could not be decoded as utf-8: " + shown + ".");
            }
            if (action.start() <= 0 && action.end() == -1) {
                // the whole file (the default): what read_lines and a join would give back
                return new FileReadObservation(text, shown, "default");
            }
            List<String> lines = readLines(splitKeepingNewlines(text.toString()), action.start(), action.end());
            return new FileReadObservation(String.join("", lines), shown, "default");
        } catch (AccessDeniedException e) {
            return ErrorObservation.of("Permission denied: " + shown);
        } catch (IOException e) {
            return ErrorObservation.of("Could not read " + shown + ": " + e.getMessage());
        }
    }

    /**
     * The file's text as OpenHands reads it (strict UTF-8, universal newlines), held as the file's
     * own bytes when it is them unchanged (no carriage return): a file read whole then goes into
     * the answer's JSON without a String.
     */
    static Utf8Text readText(byte[] bytes) throws CharacterCodingException {
        Utf8Text text = Utf8Text.decode(bytes, 0, bytes.length);
        return text.contains('\r') ? Utf8Text.of(universalNewlines(text.toString())) : text;
    }

    /** Python's universal newlines on reading: {@code \r\n} and a lone {@code \r} are {@code \n}. */
    static String universalNewlines(String text) {
        if (text.indexOf('\r') < 0) {
            return text;
        }
        return text.replace("\r\n", "\n").replace('\r', '\n');
    }

    public Observation write(FileWriteAction action, Path workingDir) {
        try {
            return write(guard.check(action.path(), workingDir), shownPath(action.path(), workingDir), action);
        } catch (PathGuard.PathRefusedException e) {
            return ErrorObservation.of(e.getMessage());
        }
    }

    private Observation write(Path file, String shown, FileWriteAction action) {
        try {
            if (Files.isDirectory(file)) {
                return ErrorObservation.of("Path is a directory: " + shown + ". You can only write to files");
            }
            Path parent = file.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // insert_lines over the whole file (start 0, end -1, the default) keeps nothing of the old
            // text and ends every inserted line with a newline: the content plus one newline
            boolean whole = action.start() == 0 && action.end() == -1;
            boolean existed = Files.exists(file);
            String newText = null;
            try {
                if (existed && whole) {
                    // the old text matters only for being UTF-8: checked as it streams by
                    checkUtf8(file);
                } else if (existed) {
                    newText = String.join("", insertLines(List.of(action.content().split("\n", -1)),
                            splitKeepingNewlines(universalNewlines(decodeUtf8(Files.readAllBytes(file)))),
                            action.start(), action.end()));
                }
            } catch (CharacterCodingException e) {
                return ErrorObservation.of("File could not be decoded as utf-8: " + shown);
            }
            // rewritten in place and then cut to its new length, as OpenHands does ('r+', write,
            // truncate): the file keeps its owner and mode, and its pages are overwritten rather than
            // freed and allocated again (truncating first made a 1 MB write ~0.6 ms slower)
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 OutputStream out = Channels.newOutputStream(channel)) {
                if (newText == null) {
                    // the content (the request's own bytes) and its newline, without joining them first
                    action.text().writeTo(out);
                    out.write('\n');
                } else {
                    out.write(newText.getBytes(StandardCharsets.UTF_8));
                }
                channel.truncate(channel.position());
            }
            if (!existed) {
                try {
                    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-r--"));
                } catch (UnsupportedOperationException | IOException ignored) {
                    // not a POSIX file system: the default mode is all there is
                }
            }
            return new FileWriteObservation("", shown);
        } catch (NoSuchFileException e) {
            return ErrorObservation.of("File not found: " + shown);
        } catch (AccessDeniedException e) {
            return ErrorObservation.of("Permission error on " + shown + ": " + e.getMessage());
        } catch (IOException e) {
            return ErrorObservation.of("Could not write " + shown + ": " + e.getMessage());
        }
    }

    /** OpenHands' {@code read_lines}: 0-based start, exclusive end, -1 for "to the end". */
    static List<String> readLines(List<String> all, int start, int end) {
        start = Math.min(Math.max(start, 0), all.size());
        end = end == -1 ? -1 : Math.max(end, 0);
        end = Math.min(end, all.size());
        if (end == -1) {
            return start == 0 ? all : all.subList(start, all.size());
        }
        int n = all.size();
        int begin = Math.max(0, Math.min(start, n - 2));
        int stop = end > n ? n : Math.max(begin + 1, end);
        return all.subList(Math.min(begin, n), Math.min(stop, n));
    }

    /** OpenHands' {@code insert_lines}: the lines before {@code start}, the new ones, those from {@code end}. */
    static List<String> insertLines(List<String> toInsert, List<String> original, int start, int end) {
        List<String> result = new ArrayList<>();
        if (start != 0) {
            result.addAll(original.subList(0, sliceIndex(start, original.size())));
        }
        toInsert.forEach(line -> result.add(line + "\n"));
        if (end != -1) {
            result.addAll(original.subList(Math.min(sliceIndex(end, original.size()), original.size()),
                    original.size()));
        }
        return result;
    }

    /** A Python slice bound: a negative one counts from the end; clamped to the list. */
    private static int sliceIndex(int index, int size) {
        return index < 0 ? Math.max(size + index, 0) : Math.min(index, size);
    }

    /** Python's {@code readlines()}: every line keeps its newline; no empty last element. */
    static List<String> splitKeepingNewlines(String text) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        while (from < text.length()) {
            int nl = text.indexOf('\n', from);
            int to = nl < 0 ? text.length() : nl + 1;
            lines.add(text.substring(from, to));
            from = to;
        }
        return lines;
    }

    /**
     * Strict UTF-8: malformed input throws. The bulk decoder (an intrinsic) runs first; only text
     * that then holds U+FFFD, a replaced byte or a real one, is decoded again strictly.
     */
    static String decodeUtf8(byte[] bytes) throws CharacterCodingException {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.indexOf('\uFFFD') >= 0) {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
        }
        return text;
    }

    /**
     * Throws unless the file is strict UTF-8. ASCII, the common case, is checked as it streams
     * through a small buffer; only a file with other bytes is read whole and decoded.
     */
    static void checkUtf8(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[CHECK_BUFFER];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                if (!Utf8Bytes.isAscii(buffer, 0, n)) {
                    decodeUtf8(Files.readAllBytes(file));
                    return;
                }
            }
        }
    }

    /** By the end of the path as OpenHands tests it ({@code filepath.lower().endswith(...)}). */
    private static String mediaType(String path) {
        String lower = path.toLowerCase(Locale.ROOT);
        int dot = lower.lastIndexOf('.');
        return dot < 0 || lower.indexOf('/', dot) >= 0 ? null : MEDIA_TYPES.get(lower.substring(dot));
    }
}
