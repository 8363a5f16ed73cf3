package dev.dockyard.executor.envd;

import dev.dockyard.executor.Reply;
import dev.dockyard.executor.files.MultipartFile;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * envd's {@code /files}: a download answers a file's bytes, an upload writes one file per
 * multipart part (the target is the part's filename, directories kept, unless {@code ?path=}
 * names it) or the octet-stream body to {@code ?path=}, gzip-encoded bodies unpacked. Errors are
 * envd's REST shape, {@code {"code": <status>, "message": "..."}}, which the SDK maps by status
 * (404 file not found, 400 a directory, 401 a bad user).
 */
final class EnvdFiles {

    private final EnvdUsers users;

    EnvdFiles(EnvdUsers users) {
        this.users = users;
    }

    /** {@code GET /files?path=&username=}. */
    Reply download(String path, String username) {
        Path target;
        try {
            target = EnvdUsers.resolve(users.named(username), path);
        } catch (ConnectError e) {
            return error(e);
        }
        if (!Files.exists(target)) {
            return error(404, "path '" + target + "' does not exist");
        }
        if (Files.isDirectory(target)) {
            return error(400, "path '" + target + "' is a directory");
        }
        long size;
        try {
            size = Files.size(target);
        } catch (IOException e) {
            return error(500, "error reading file: " + e.getMessage());
        }
        // a header is Latin-1 on the wire: anything else in the name is left out
        String name = target.getFileName().toString().replaceAll("[^\\x20-\\x7e]|\"", "_");
        return Reply.streamed("application/octet-stream", out -> Files.copy(target, out),
                Map.of("Content-Length", String.valueOf(size), "Content-Disposition", "inline; filename=\"" + name + "\""));
    }

    /**
     * {@code POST /files?path=&username=}, multipart or octet-stream, maybe gzip-encoded; the
     * {@code X-Metadata-*} of {@code headers} become every written file's metadata.
     */
    Reply upload(String contentType, String contentEncoding, Map<String, List<String>> headers, InputStream body,
                 String path, String username) {
        EnvdUsers.User user;
        Map<String, String> metadata;
        try {
            user = users.named(username);
            metadata = FileMetadata.fromHeaders(headers);
        } catch (ConnectError e) {
            return error(e);
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
        String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
        JsonArrayBuilder written = Jsonp.createArrayBuilder();
        try (InputStream in = decoded(body, contentEncoding)) {
            if (type.startsWith("application/octet-stream")) {
                if (path == null || path.isEmpty()) {
                    return error(400, "the path query parameter is required for an octet-stream upload");
                }
                written.add(write(EnvdUsers.resolve(user, path), in, metadata));
            } else if (type.startsWith("multipart/form-data")) {
                Set<Path> seen = new HashSet<>();
                MultipartFile.Parts parts = MultipartFile.parts(contentType, in);
                for (MultipartFile part = parts.next(); part != null; part = parts.next()) {
                    if (part.filename() == null) {
                        continue;
                    }
                    String given = path != null && !path.isEmpty() ? path : unescape(part.filename());
                    Path target = EnvdUsers.resolve(user, given);
                    if (!seen.add(target)) {
                        return error(400, "cannot upload multiple files to the same path '" + target + "'");
                    }
                    written.add(write(target, part.content(), metadata));
                }
                if (seen.isEmpty()) {
                    return error(400, "the multipart body has no file");
                }
            } else {
                return error(400, "the Content-Type must be multipart/form-data or application/octet-stream");
            }
        } catch (UploadRefused e) {
            return error(e.status, e.getMessage());
        } catch (ConnectError e) {
            return error(e);
        } catch (IllegalArgumentException | ZipException e) {
            return error(400, "malformed upload: " + e.getMessage());
        } catch (IOException e) {
            return error(e instanceof AccessDeniedException ? 403 : 500, "error writing file: " + e.getMessage());
        }
        return Reply.json(200, written.build());
    }

    private static InputStream decoded(InputStream body, String contentEncoding) throws IOException {
        if (contentEncoding == null || contentEncoding.isBlank() || contentEncoding.equalsIgnoreCase("identity")) {
            return body;
        }
        if (contentEncoding.equalsIgnoreCase("gzip")) {
            return new GZIPInputStream(body, 64 * 1024);
        }
        throw new UploadRefused(400, "unsupported Content-Encoding '" + contentEncoding + "'");
    }

    /** undici escapes '"', CR and LF in a part's filename; everything else comes as raw UTF-8. */
    private static String unescape(String filename) {
        return filename.replace("%22", "\"").replace("%0D", "\r").replace("%0A", "\n");
    }

    /**
     * Writes {@code content} to {@code target} (parents created, an existing file truncated in
     * place) and replaces its metadata.
     */
    private static JsonObject write(Path target, InputStream content, Map<String, String> metadata)
            throws IOException {
        if (Files.isDirectory(target)) {
            throw new UploadRefused(400, "path '" + target + "' is a directory");
        }
        if (target.getParent() != null) {
            Files.createDirectories(target.getParent());
        }
        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            content.transferTo(out);
        }
        FileMetadata.write(target, metadata);
        JsonObjectBuilder entry = Jsonp.createObjectBuilder().add("path", target.toString())
                .add("name", target.getFileName().toString()).add("type", "file");
        FileMetadata.addTo(entry, target);
        return entry.build();
    }

    /** envd's REST error body. */
    static Reply error(int status, String message) {
        return Reply.json(status, Jsonp.createObjectBuilder().add("code", status).add("message", message).build());
    }

    private static Reply error(ConnectError e) {
        return error(e.httpStatus(), e.getMessage());
    }

    /** An upload refused for the client's reason, with its status. */
    private static final class UploadRefused extends IOException {
        private final int status;

        UploadRefused(int status, String message) {
            super(message);
            this.status = status;
        }
    }
}
