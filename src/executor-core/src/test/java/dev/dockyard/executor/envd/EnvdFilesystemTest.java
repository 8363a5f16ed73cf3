package dev.dockyard.executor.envd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.executor.envd.ConnectClient.Envelope;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** envd's {@code filesystem.Filesystem} over a real executor and HTTP server, on real files. */
class EnvdFilesystemTest extends EnvdServerTests {

    private static String path(Object path) {
        return "{\"path\":" + Json.createValue(path.toString()) + "}";
    }

    private static String code(ConnectClient.Answer answer) {
        return answer.body().getString("code");
    }

    @Test
    void shouldStatAFileAsEnvdDoes() throws IOException {
        Path file = Files.writeString(server.home.resolve("stat.txt"), "12345");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        JsonObject entry = client.ok("filesystem.Filesystem/Stat", path("stat.txt")).getJsonObject("entry");
        assertEquals("stat.txt", entry.getString("name"));
        assertEquals("FILE_TYPE_FILE", entry.getString("type"));
        assertEquals(file.toString(), entry.getString("path"), "a relative path starts at the home");
        assertEquals("5", entry.getString("size"), "int64 is a string");
        assertEquals(0640, entry.getInt("mode"));
        assertEquals("-rw-r-----", entry.getString("permissions"));
        assertEquals(System.getProperty("user.name"), entry.getString("owner"));
        assertFalse(entry.getString("group").isEmpty());
        assertEquals(Files.getLastModifiedTime(file).toInstant(), Instant.parse(entry.getString("modifiedTime")));
        assertFalse(entry.containsKey("symlinkTarget"));

        ConnectClient.Answer missing = client.unary("filesystem.Filesystem/Stat", path("nope"));
        assertEquals(404, missing.status());
        assertEquals("not_found", code(missing));
    }

    @Test
    void shouldStatADirectoryAndALink() throws IOException {
        Path target = Files.createDirectories(server.home.resolve("linked"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path link = Files.createSymbolicLink(server.home.resolve("link"), target);
        JsonObject dirEntry = client.ok("filesystem.Filesystem/Stat", path(target)).getJsonObject("entry");
        assertEquals("FILE_TYPE_DIRECTORY", dirEntry.getString("type"));
        assertEquals("drwxr-xr-x", dirEntry.getString("permissions"));
        assertEquals(0755, dirEntry.getInt("mode"), "the permission bits, as envd's FileMode.Perm()");
        JsonObject linkEntry = client.ok("filesystem.Filesystem/Stat", path(link)).getJsonObject("entry");
        assertEquals("FILE_TYPE_DIRECTORY", linkEntry.getString("type"), "a link reports its target's type");
        assertEquals(target.toRealPath().toString(), linkEntry.getString("symlinkTarget"));
        assertEquals("Lrwxrwxrwx", linkEntry.getString("permissions"));
    }

    @Test
    void shouldMakeDirectoriesWithParentsAndRefuseExistingPaths() throws IOException {
        JsonObject made = client.ok("filesystem.Filesystem/MakeDir", path("a/b/c")).getJsonObject("entry");
        assertEquals("FILE_TYPE_DIRECTORY", made.getString("type"));
        assertTrue(Files.isDirectory(server.home.resolve("a/b/c")));
        ConnectClient.Answer again = client.unary("filesystem.Filesystem/MakeDir", path("a/b/c"));
        assertEquals(409, again.status());
        assertEquals("already_exists", code(again));
        Files.writeString(server.home.resolve("plain"), "x");
        ConnectClient.Answer file = client.unary("filesystem.Filesystem/MakeDir", path("plain"));
        assertEquals(400, file.status());
        assertEquals("invalid_argument", code(file));
    }

    @Test
    void shouldMoveCreatingParentsAndReportAMissingSource() throws IOException {
        Files.writeString(server.home.resolve("from.txt"), "moved");
        JsonObject entry = client.ok("filesystem.Filesystem/Move",
                "{\"source\":\"from.txt\",\"destination\":\"to/dir/to.txt\"}").getJsonObject("entry");
        assertEquals(server.home.resolve("to/dir/to.txt").toString(), entry.getString("path"));
        assertEquals("moved", Files.readString(server.home.resolve("to/dir/to.txt")));
        assertFalse(Files.exists(server.home.resolve("from.txt")));
        ConnectClient.Answer missing = client.unary("filesystem.Filesystem/Move",
                "{\"source\":\"from.txt\",\"destination\":\"x\"}");
        assertEquals("not_found", code(missing));
    }

    @Test
    void shouldRemoveTreesAndSucceedOnAMissingPath() throws IOException {
        Path tree = Files.createDirectories(server.home.resolve("tree/sub"));
        Files.writeString(tree.resolve("f"), "x");
        Path outside = Files.writeString(dir.resolve("outside.txt"), "kept");
        Files.createSymbolicLink(tree.resolve("out"), outside);
        client.ok("filesystem.Filesystem/Remove", path("tree"));
        assertFalse(Files.exists(server.home.resolve("tree")));
        assertTrue(Files.exists(outside), "a link is removed, never followed");
        client.ok("filesystem.Filesystem/Remove", path("tree"));
    }

    @Test
    void shouldListToADepthWithoutFollowingLinks() throws IOException {
        Path root = Files.createDirectories(server.home.resolve("list/b/deeper"));
        Files.writeString(server.home.resolve("list/a.txt"), "a");
        Files.writeString(server.home.resolve("list/b/c.txt"), "c");
        Files.writeString(root.resolve("d.txt"), "d");
        Files.createSymbolicLink(server.home.resolve("list/l"), server.home.resolve("list/b"));
        List<String> one = names(client.ok("filesystem.Filesystem/ListDir", path("list")));
        assertEquals(List.of("a.txt", "b", "l"), one, "depth 1 by default, in lexical order");
        List<String> two = paths(client.ok("filesystem.Filesystem/ListDir", "{\"path\":\"list\",\"depth\":2}"));
        assertEquals(List.of("list/a.txt", "list/b", "list/b/c.txt", "list/b/deeper", "list/l"), two,
                "the link's target is not walked");
        ConnectClient.Answer file = client.unary("filesystem.Filesystem/ListDir", path("list/a.txt"));
        assertEquals("invalid_argument", code(file));
        assertEquals("not_found", code(client.unary("filesystem.Filesystem/ListDir", path("nothing-here"))));
    }

    private static List<String> names(JsonObject listing) {
        return listing.getJsonArray("entries").getValuesAs(JsonObject.class).stream().map(e -> e.getString("name"))
                .collect(Collectors.toList());
    }

    private static List<String> paths(JsonObject listing) {
        return listing.getJsonArray("entries").getValuesAs(JsonObject.class).stream()
                .map(e -> server.home.relativize(Path.of(e.getString("path"))).toString()).collect(Collectors.toList());
    }

    @Test
    void shouldStreamWatchEventsWithNamesRelativeToTheWatchedDirectory() throws IOException {
        Path watched = Files.createDirectories(server.home.resolve("watched/sub")).getParent();
        try (ConnectClient.Stream stream = client.stream("filesystem.Filesystem/WatchDir",
                "{\"path\":\"watched\",\"recursive\":true,\"includeEntry\":true}",
                Map.of("Keepalive-Ping-Interval", "50", "Connect-Timeout-Ms", "60000"))) {
            Envelope first = stream.next();
            assertTrue(first.message().containsKey("start"), "start{} comes first: " + first);
            Files.writeString(watched.resolve("new.txt"), "x");
            JsonObject created = nextEvent(stream, "new.txt", "EVENT_TYPE_CREATE");
            assertEquals("FILE_TYPE_FILE", created.getJsonObject("entry").getString("type"));
            Files.writeString(watched.resolve("sub/nested.txt"), "y");
            nextEvent(stream, "sub/nested.txt", "EVENT_TYPE_CREATE");
            Files.delete(watched.resolve("new.txt"));
            nextEvent(stream, "new.txt", "EVENT_TYPE_REMOVE");
        }
        ConnectClient.Stream missing = client.stream("filesystem.Filesystem/WatchDir", path("no-such-dir"));
        Envelope only = missing.next();
        assertTrue(only.endStream());
        assertEquals("not_found", only.message().getJsonObject("error").getString("code"));
        missing.close();
    }

    /** The next filesystem event of {@code name} and {@code type}, skipping others (each read bounded). */
    private static JsonObject nextEvent(ConnectClient.Stream stream, String name, String type) throws IOException {
        List<JsonObject> seen = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Envelope envelope = stream.next();
            assertFalse(envelope.endStream(), "ended: " + envelope + " after " + seen);
            JsonObject event = envelope.message().getJsonObject("filesystem");
            if (event != null && event.getString("name").equals(name) && event.getString("type").equals(type)) {
                return event;
            }
            seen.add(envelope.message());
        }
        throw new AssertionError(name + " " + type + " not seen in " + seen);
    }

    @Test
    void shouldKeepEventsForAPolledWatcher() throws IOException, InterruptedException {
        Path watched = Files.createDirectories(server.home.resolve("polled"));
        String id = client.ok("filesystem.Filesystem/CreateWatcher", path("polled")).getString("watcherId");
        Files.writeString(watched.resolve("p.txt"), "x");
        List<JsonObject> events = new ArrayList<>();
        for (int i = 0; i < 50 && events.stream().noneMatch(e -> e.getString("name").equals("p.txt")); i++) {
            events.addAll(client.ok("filesystem.Filesystem/GetWatcherEvents", "{\"watcherId\":\"" + id + "\"}")
                    .getJsonArray("events").getValuesAs(JsonObject.class));
            Thread.sleep(100);
        }
        assertTrue(events.stream().anyMatch(e -> e.getString("name").equals("p.txt")
                && e.getString("type").equals("EVENT_TYPE_CREATE")), events.toString());
        client.ok("filesystem.Filesystem/RemoveWatcher", "{\"watcher_id\":\"" + id + "\"}");
        assertEquals("not_found", code(client.unary("filesystem.Filesystem/GetWatcherEvents",
                "{\"watcherId\":\"" + id + "\"}")));
    }
}
