package dev.dockyard.executor.envd;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A watch of one directory (and, when recursive, of every directory below it, new ones included)
 * for envd's WatchDir and CreateWatcher: each change becomes a {@code FilesystemEvent} with its
 * {@code name} relative to the watched directory. It uses the JDK's WatchService, which is inotify
 * on Linux; that service reports three kinds, so envd's five map onto them: CREATE, WRITE (a
 * change of content or of attributes, so also envd's CHMOD) and REMOVE; a rename shows as the
 * REMOVE of the old name and the CREATE of the new one.
 */
final class DirectoryWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DirectoryWatch.class.getName());

    private final Path root;
    private final boolean recursive;
    private final boolean includeEntry;
    private final Consumer<JsonObject> events;
    private final WatchService service;
    private final Map<WatchKey, Path> directories = new ConcurrentHashMap<>();

    private DirectoryWatch(Path root, boolean recursive, boolean includeEntry, Consumer<JsonObject> events)
            throws IOException {
        this.root = root;
        this.recursive = recursive;
        this.includeEntry = includeEntry;
        this.events = events;
        this.service = FileSystems.getDefault().newWatchService();
    }

    /**
     * Watches {@code root} (a directory that exists; the caller checked) and hands each event to
     * {@code events} on a thread of the watch's own, until closed.
     */
    static DirectoryWatch start(Path root, boolean recursive, boolean includeEntry, Consumer<JsonObject> events)
            throws IOException {
        DirectoryWatch watch = new DirectoryWatch(root, recursive, includeEntry, events);
        try {
            watch.register(root);
        } catch (IOException e) {
            watch.close();
            throw e;
        }
        Thread thread = new Thread(watch::run, "envd-watch");
        thread.setDaemon(true);
        thread.start();
        return watch;
    }

    private void register(Path dir) throws IOException {
        if (!recursive) {
            add(dir);
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                add(d);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private void add(Path dir) throws IOException {
        directories.put(dir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE), dir);
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = service.take();
                Path dir = directories.get(key);
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (dir != null && event.context() instanceof Path name) {
                        deliver(event.kind(), dir.resolve(name));
                    }
                }
                if (!key.reset()) {
                    directories.remove(key);
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // closed: the watch is over
        }
    }

    private void deliver(WatchEvent.Kind<?> kind, Path path) {
        String type = kind == StandardWatchEventKinds.ENTRY_CREATE ? "EVENT_TYPE_CREATE"
                : kind == StandardWatchEventKinds.ENTRY_DELETE ? "EVENT_TYPE_REMOVE" : "EVENT_TYPE_WRITE";
        if (recursive && kind == StandardWatchEventKinds.ENTRY_CREATE
                && Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            try {
                register(path);
            } catch (IOException e) {
                LOG.log(Level.FINE, "a new directory could not be watched", e);
            }
        }
        JsonObjectBuilder event = Jsonp.createObjectBuilder().add("name", root.relativize(path).toString())
                .add("type", type);
        if (includeEntry && kind != StandardWatchEventKinds.ENTRY_DELETE) {
            try {
                event.add("entry", EntryInfos.of(path, path));
            } catch (IOException e) {
                // gone again already: the event goes without its entry, as envd's does
            }
        }
        events.accept(event.build());
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "watch service close", e);
        }
    }
}
