package dev.dockyard.executor.envd;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * envd's {@code filesystem.Filesystem} service, with envd's semantics: paths resolve against the
 * user's home; MakeDir creates parents and refuses an existing path; Move creates the
 * destination's parents; Remove of a missing path succeeds ({@code os.RemoveAll}); ListDir walks
 * {@code depth} levels (1 by default) without following links. Watches come in two flavours over
 * one {@link DirectoryWatch}: WatchDir's stream and the polled watchers of the Python sync SDK
 * (CreateWatcher, GetWatcherEvents, RemoveWatcher), kept here by id.
 */
final class EnvdFilesystem implements AutoCloseable {

    /** Events a polled watcher keeps between two polls; older ones are dropped. */
    static final int MAX_PENDING_EVENTS = 10_000;
    static final int MAX_WATCHERS = 256;

    /** A polled watcher: its watch and the events not yet fetched. */
    private record Watcher(DirectoryWatch watch, List<JsonObject> pending) {
    }

    private final Map<String, Watcher> watchers = new ConcurrentHashMap<>();

    JsonObject stat(EnvdUsers.User user, JsonObject request) {
        Path path = EnvdUsers.resolve(user, ConnectWire.string(request, "path"));
        return entryMessage(entry(path, path));
    }

    JsonObject makeDir(EnvdUsers.User user, JsonObject request) {
        Path path = EnvdUsers.resolve(user, ConnectWire.string(request, "path"));
        if (Files.isDirectory(path)) {
            throw new ConnectError("already_exists", "directory already exists: " + path);
        }
        if (Files.exists(path)) {
            throw ConnectError.invalidArgument("path already exists but it is not a directory: " + path);
        }
        try {
            Files.createDirectories(path);
        } catch (IOException e) {
            throw failed("error creating directory", e);
        }
        return entryMessage(entry(path, path));
    }

    JsonObject move(EnvdUsers.User user, JsonObject request) {
        Path source = EnvdUsers.resolve(user, ConnectWire.string(request, "source"));
        Path destination = EnvdUsers.resolve(user, ConnectWire.string(request, "destination"));
        if (!Files.exists(source, LinkOption.NOFOLLOW_LINKS)) {
            throw ConnectError.notFound("source file not found: " + source);
        }
        try {
            if (destination.getParent() != null) {
                Files.createDirectories(destination.getParent());
            }
            try {
                // rename(2), as Go's os.Rename: an existing file at the destination is replaced
                Files.move(source, destination, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(source, destination, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw failed("error renaming", e);
        }
        return entryMessage(entry(destination, destination));
    }

    JsonObject remove(EnvdUsers.User user, JsonObject request) {
        Path path = EnvdUsers.resolve(user, ConnectWire.string(request, "path"));
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        try {
            // links are removed, never followed
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw failed("error removing file or directory", e);
        }
        return JsonValue.EMPTY_JSON_OBJECT;
    }

    JsonObject listDir(EnvdUsers.User user, JsonObject request) {
        long depth = ConnectWire.integer(request, "depth", null);
        Path requested = EnvdUsers.resolve(user, ConnectWire.string(request, "path"));
        Path resolved;
        try {
            resolved = requested.toRealPath();
        } catch (NoSuchFileException e) {
            throw ConnectError.notFound("path not found: " + requested);
        } catch (IOException e) {
            throw failed("error resolving symlink", e);
        }
        if (!Files.isDirectory(resolved)) {
            throw ConnectError.invalidArgument("path is not a directory: " + requested);
        }
        JsonArrayBuilder entries = Jsonp.createArrayBuilder();
        walk(resolved, requested, depth <= 0 ? 1 : depth, entries);
        return Jsonp.createObjectBuilder().add("entries", entries).build();
    }

    /** Lexical order, as Go's filepath.WalkDir; an entry gone meanwhile is skipped. */
    private static void walk(Path dir, Path shown, long depth, JsonArrayBuilder entries) {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir)) {
            listing.forEach(children::add);
        } catch (IOException e) {
            throw failed("error reading directory " + dir, e);
        }
        children.sort(null);
        for (Path child : children) {
            Path shownChild = shown.resolve(child.getFileName());
            try {
                entries.add(EntryInfos.of(child, shownChild));
            } catch (NoSuchFileException e) {
                continue;
            } catch (IOException e) {
                throw failed("error getting file info", e);
            }
            if (depth > 1 && Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                walk(child, shownChild, depth - 1, entries);
            }
        }
    }

    /** Checks a path to watch: a directory that exists. */
    static Path watchable(EnvdUsers.User user, JsonObject request) {
        Path path = EnvdUsers.resolve(user, ConnectWire.string(request, "path"));
        if (!Files.exists(path)) {
            throw ConnectError.notFound("path " + path + " not found");
        }
        if (!Files.isDirectory(path)) {
            throw ConnectError.invalidArgument("path " + path + " not a directory");
        }
        return path;
    }

    /** WatchDir: {@code start{}} first, then one {@code filesystem} message per event, until the client goes. */
    static DirectoryWatch watchDir(Path path, JsonObject request, EventStream client) {
        client.send(Jsonp.createObjectBuilder().add("start", JsonValue.EMPTY_JSON_OBJECT).build());
        try {
            return DirectoryWatch.start(path, ConnectWire.flag(request, "recursive", null),
                    ConnectWire.flag(request, "includeEntry", "include_entry"),
                    event -> client.send(Jsonp.createObjectBuilder().add("filesystem", event).build()));
        } catch (IOException e) {
            throw failed("error adding path " + path + " to watcher", e);
        }
    }

    JsonObject createWatcher(EnvdUsers.User user, JsonObject request) {
        Path path = watchable(user, request);
        if (watchers.size() >= MAX_WATCHERS) {
            throw new ConnectError("resource_exhausted", "too many watchers (" + MAX_WATCHERS + ")");
        }
        List<JsonObject> pending = new ArrayList<>();
        DirectoryWatch watch;
        try {
            watch = DirectoryWatch.start(path, ConnectWire.flag(request, "recursive", null),
                    ConnectWire.flag(request, "includeEntry", "include_entry"), event -> {
                        synchronized (pending) {
                            if (pending.size() >= MAX_PENDING_EVENTS) {
                                pending.remove(0);
                            }
                            pending.add(event);
                        }
                    });
        } catch (IOException e) {
            throw failed("error adding path " + path + " to watcher", e);
        }
        String id = UUID.randomUUID().toString();
        watchers.put(id, new Watcher(watch, pending));
        return Jsonp.createObjectBuilder().add("watcherId", id).build();
    }

    JsonObject getWatcherEvents(JsonObject request) {
        Watcher watcher = watcher(request);
        JsonArrayBuilder events = Jsonp.createArrayBuilder();
        synchronized (watcher.pending()) {
            watcher.pending().forEach(events::add);
            watcher.pending().clear();
        }
        return Jsonp.createObjectBuilder().add("events", events).build();
    }

    JsonObject removeWatcher(JsonObject request) {
        Watcher watcher = watcher(request);
        watchers.values().remove(watcher);
        watcher.watch().close();
        return JsonValue.EMPTY_JSON_OBJECT;
    }

    private Watcher watcher(JsonObject request) {
        String id = ConnectWire.string(request, "watcherId", "watcher_id");
        Watcher watcher = id == null ? null : watchers.get(id);
        if (watcher == null) {
            throw ConnectError.notFound("watcher with id " + id + " not found");
        }
        return watcher;
    }

    private static JsonObject entryMessage(JsonObject entry) {
        return Jsonp.createObjectBuilder().add("entry", entry).build();
    }

    private static JsonObject entry(Path path, Path shown) {
        try {
            return EntryInfos.of(path, shown);
        } catch (NoSuchFileException e) {
            throw ConnectError.notFound("file not found: " + path);
        } catch (IOException e) {
            throw failed("error getting file info", e);
        }
    }

    /** An I/O failure as envd reports it: permission_denied when access was refused, else internal. */
    static ConnectError failed(String what, IOException e) {
        if (e instanceof AccessDeniedException) {
            return new ConnectError("permission_denied", what + ": permission denied: " + e.getMessage());
        }
        if (e instanceof NoSuchFileException) {
            return ConnectError.notFound(what + ": no such file or directory: " + e.getMessage());
        }
        return ConnectError.internal(what + ": " + e.getMessage());
    }

    @Override
    public void close() {
        watchers.values().forEach(w -> w.watch().close());
        watchers.clear();
    }
}
