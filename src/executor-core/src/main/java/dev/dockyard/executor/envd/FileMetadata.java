package dev.dockyard.executor.envd;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * envd's file metadata (envd 0.6.2 on): an upload's {@code X-Metadata-<key>: <value>} headers,
 * kept on the file as {@code user.e2b.<key>} extended attributes (the JDK's user-defined
 * attributes are the {@code user.} namespace) and shown in {@code EntryInfo.metadata}. An upload
 * replaces the whole set, and keys are lower case. A filesystem without user xattrs keeps none,
 * silently, as envd does.
 */
final class FileMetadata {

    static final String HEADER_PREFIX = "x-metadata-";
    private static final String NAMESPACE = "e2b.";
    /** envd's bound on a file's metadata: names (with {@code user.e2b.}) and values together. */
    static final int MAX_TOTAL_BYTES = 4096;

    private FileMetadata() {
    }

    /**
     * The {@code X-Metadata-*} headers of a request, keys lower-cased, the first value of each;
     * a key or value that is not printable ASCII, or a set over {@link #MAX_TOTAL_BYTES}, is
     * refused (IllegalArgumentException), as envd refuses it with 400.
     */
    static Map<String, String> fromHeaders(Map<String, List<String>> headers) {
        Map<String, String> metadata = new TreeMap<>();
        int total = 0;
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            String name = header.getKey() == null ? "" : header.getKey().toLowerCase(Locale.ROOT);
            if (!name.startsWith(HEADER_PREFIX) || name.length() == HEADER_PREFIX.length()
                    || header.getValue() == null || header.getValue().isEmpty()) {
                continue;
            }
            String key = name.substring(HEADER_PREFIX.length());
            String value = header.getValue().get(0);
            if (!printable(key) || !printable(value)) {
                throw new IllegalArgumentException("metadata keys and values must be printable ASCII");
            }
            total += "user.".length() + NAMESPACE.length() + key.length() + value.length();
            metadata.put(key, value);
        }
        if (total > MAX_TOTAL_BYTES) {
            throw new IllegalArgumentException("total metadata size " + total + " exceeds " + MAX_TOTAL_BYTES + " bytes");
        }
        return metadata;
    }

    private static boolean printable(String text) {
        return text.chars().allMatch(c -> c >= 0x20 && c <= 0x7e);
    }

    /** Replaces {@code file}'s metadata with {@code metadata} (an empty map clears it). */
    static void write(Path file, Map<String, String> metadata) throws IOException {
        UserDefinedFileAttributeView view = Files.getFileAttributeView(file, UserDefinedFileAttributeView.class);
        if (view == null) {
            return;
        }
        try {
            for (String name : view.list()) {
                if (name.startsWith(NAMESPACE)) {
                    view.delete(name);
                }
            }
            for (Map.Entry<String, String> entry : metadata.entrySet()) {
                view.write(NAMESPACE + entry.getKey(), StandardCharsets.US_ASCII.encode(entry.getValue()));
            }
        } catch (IOException e) {
            if (!unsupported(e)) {
                throw e;
            }
        }
    }

    /** The entry's metadata added to {@code entry} when it has any (links are not followed). */
    static void addTo(JsonObjectBuilder entry, Path path) {
        Map<String, String> metadata = read(path);
        if (!metadata.isEmpty()) {
            JsonObjectBuilder map = Jsonp.createObjectBuilder();
            metadata.forEach(map::add);
            entry.add("metadata", map);
        }
    }

    static Map<String, String> read(Path path) {
        Map<String, String> metadata = new LinkedHashMap<>();
        if (Files.isSymbolicLink(path)) {
            return metadata;
        }
        UserDefinedFileAttributeView view = Files.getFileAttributeView(path, UserDefinedFileAttributeView.class);
        if (view == null) {
            return metadata;
        }
        try {
            for (String name : view.list()) {
                if (name.startsWith(NAMESPACE)) {
                    ByteBuffer value = ByteBuffer.allocate(view.size(name));
                    view.read(name, value);
                    value.flip();
                    // envd skips a value that is not valid text rather than fail the entry
                    String text = StandardCharsets.UTF_8.decode(value).toString();
                    if (text.indexOf('\uFFFD') < 0) {
                        metadata.put(name.substring(NAMESPACE.length()), text);
                    }
                }
            }
        } catch (IOException e) {
            // best effort, as envd's: an entry without metadata rather than no entry
        }
        return metadata;
    }

    /** ENOTSUP/EOPNOTSUPP: a filesystem without user xattrs (tmpfs on older kernels, some overlays). */
    private static boolean unsupported(IOException e) {
        String message = String.valueOf(e.getMessage());
        return message.contains("not supported");
    }
}
