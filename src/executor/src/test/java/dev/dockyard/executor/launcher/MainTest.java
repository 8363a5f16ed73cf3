package dev.dockyard.executor.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the WAR lays itself out as a class path: what start-executor and the AOT cache rely on. */
class MainTest {

    @TempDir
    Path tmp;

    @Test
    void shouldLayOutClassesAsOneJarBesideTheLibrariesWithARelativeSortedClassPath() throws IOException {
        Path war = war(Map.of(
                "WEB-INF/classes/dev/x/A.class", "a",
                "WEB-INF/classes/META-INF/services/s", "svc",
                "WEB-INF/lib/zeta.jar", "z",
                "WEB-INF/lib/alpha.jar", "l",
                "WEB-INF/embedded/parsson.jar", "p",
                "WEB-INF/lib/nested/ignored.jar", "n",
                "WEB-INF/web.xml", "<web-app/>",
                "dev/dockyard/executor/launcher/Main.class", "m"));
        Path dir = tmp.resolve("out");

        Main.extract(war, dir);

        assertEquals(List.of("alpha.jar", "executor-classes.jar", "parsson.jar", "zeta.jar"),
                Files.readAllLines(dir.resolve(Main.CLASSPATH_FILE)));
        assertArrayEquals("z".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(dir.resolve("zeta.jar")));
        assertArrayEquals("p".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(dir.resolve("parsson.jar")));
        assertFalse(Files.exists(dir.resolve("ignored.jar")), "only the folders' own jars");
        try (JarFile classes = new JarFile(dir.resolve(Main.CLASSES_JAR).toFile())) {
            assertTrue(classes.getEntry("dev/x/A.class") != null);
            assertTrue(classes.getEntry("META-INF/services/s") != null);
            assertTrue(classes.getEntry("WEB-INF/web.xml") == null);
        }
    }

    @Test
    void shouldReplaceAnEarlierLayoutWholeAndLeaveNoStagingBehind() throws IOException {
        Path dir = tmp.resolve("out");
        Main.extract(war(Map.of("WEB-INF/lib/old.jar", "o")), dir);
        Main.extract(war(Map.of("WEB-INF/lib/new.jar", "n")), dir);

        assertEquals(List.of("executor-classes.jar", "new.jar"), Files.readAllLines(dir.resolve(Main.CLASSPATH_FILE)));
        assertFalse(Files.exists(dir.resolve("old.jar")));
        try (var siblings = Files.list(tmp)) {
            assertEquals(List.of(dir, tmp.resolve("war.war")), siblings.sorted().toList());
        }
    }

    @Test
    void shouldNeverReplaceADirectoryItDidNotLayOut() throws IOException {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(home.resolve("notes.txt"), "mine");
        IOException refused = assertThrows(IOException.class, () -> Main.extract(war(Map.of()), home));
        assertTrue(refused.getMessage().contains("neither empty nor a layout"), refused.getMessage());
        assertEquals("mine", Files.readString(home.resolve("notes.txt")));
        // a layout with a file its class path does not name is not taken for one either
        Path dir = tmp.resolve("out");
        Main.extract(war(Map.of("WEB-INF/lib/a.jar", "a")), dir);
        Files.writeString(dir.resolve("extra.txt"), "x");
        assertThrows(IOException.class, () -> Main.extract(war(Map.of()), dir));
        assertTrue(Files.exists(dir.resolve("extra.txt")));
    }

    @Test
    void shouldNameALayoutByTheWarsContent() throws IOException {
        String first = Main.digest(war(Map.of("WEB-INF/lib/a.jar", "a")));
        String same = Main.digest(war(Map.of("WEB-INF/lib/a.jar", "a")));
        String other = Main.digest(war(Map.of("WEB-INF/lib/a.jar", "b")));
        assertEquals(16, first.length());
        assertEquals(first, same);
        assertFalse(first.equals(other));
    }

    private Path war(Map<String, String> entries) throws IOException {
        Path war = tmp.resolve("war.war");
        try (OutputStream file = Files.newOutputStream(war); ZipOutputStream zip = new ZipOutputStream(file)) {
            for (Map.Entry<String, String> e : new TreeMap<>(entries).entrySet()) {
                ZipEntry entry = new ZipEntry(e.getKey());
                entry.setTime(0);
                zip.putNextEntry(entry);
                zip.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return war;
    }
}
