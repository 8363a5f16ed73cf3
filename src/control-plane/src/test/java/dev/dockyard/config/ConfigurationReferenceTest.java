package dev.dockyard.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference (docs/configuration.md) against the code, so that neither drifts:
 * every setting the server reads by its full name is a row of the reference, and every row names a
 * setting something reads — the server's code, or a variable of server.xml and its included files.
 * Per-node and per-pool settings ({@code dockyard.node.<name>.cpus}) are read under a prefix built at
 * run time; a row of that form must name a suffix the code spells out ({@code "cpus"}).
 */
class ConfigurationReferenceTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../..").normalize();
    private static final Path REFERENCE = ROOT.resolve("docs/configuration.md");
    private static final Path SOURCES = ROOT.resolve("src/control-plane/src/main/java");
    /**
     * A full setting name as the code spells it: an injected property, a lookup, or a constant named
     * a setting (metric names are constants too, and not settings).
     */
    private static final Pattern READ = Pattern.compile("(?:@ConfigProperty\\(\\s*name\\s*=\\s*|get(?:Optional)?Value\\("
            + "|String [A-Z_]*SETTING\\s*=\\s*)\"(dockyard\\.[a-z0-9.-]*[a-z0-9])\"");
    /** A row of the reference: its first cell starts with the setting's name in backticks. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(dockyard\\.[^`]+)`");

    @Test
    void shouldDocumentEverySettingTheServerReads() {
        Set<String> documented = documented();
        Set<String> missing = read().stream().filter(key -> !documented.contains(key))
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(missing.isEmpty(), "settings the code reads that docs/configuration.md has no row for: " + missing);
    }

    @Test
    void shouldNameOnlySettingsSomethingReads() {
        Set<String> read = read();
        String sources = text(javaFiles());
        String serverConfig = text(serverConfigFiles());
        Set<String> stale = new TreeSet<>();
        for (String key : documented()) {
            if (key.contains("<")) {
                // dockyard.node.<name>.cpus: the code builds the prefix and spells the suffix
                String suffix = key.substring(key.lastIndexOf('>') + 2);
                // appended to the prefix ("+ \"cpus\""), the end of a longer name, or a constant's value
                if (!Pattern.compile("([+=]\\s*\"" + Pattern.quote(suffix) + "\")|(\\.\\Q" + suffix + "\\E\")")
                        .matcher(sources).find()) {
                    stale.add(key);
                }
            } else if (!read.contains(key) && !serverConfig.contains("${" + key + "}")
                    && !serverConfig.contains("name=\"" + key + "\"")) {
                stale.add(key);
            }
        }
        assertTrue(stale.isEmpty(), "rows of docs/configuration.md that nothing reads: " + stale);
    }

    @Test
    void shouldGiveEachSettingOneRow() {
        List<String> rows = rows();
        assertFalse(rows.isEmpty(), "no setting rows in " + REFERENCE);
        Set<String> seen = new TreeSet<>();
        Set<String> twice = rows.stream().filter(key -> !seen.add(key)).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(twice.isEmpty(), "settings with more than one row: " + twice);
    }

    private static Set<String> documented() {
        return new TreeSet<>(rows());
    }

    private static List<String> rows() {
        try (Stream<String> lines = Files.lines(REFERENCE)) {
            return lines.map(ROW::matcher).filter(Matcher::find).map(m -> m.group(1).strip()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> read() {
        Set<String> keys = new TreeSet<>();
        for (Path file : javaFiles()) {
            Matcher m = READ.matcher(read(file));
            while (m.find()) {
                // a prefix the code completes at run time is not a setting of its own
                if (!m.group(1).endsWith(".")) {
                    keys.add(m.group(1));
                }
            }
        }
        return keys;
    }

    private static List<Path> javaFiles() {
        return files(SOURCES, ".java");
    }

    private static List<Path> serverConfigFiles() {
        List<Path> files = new ArrayList<>(files(ROOT.resolve("liberty"), ".xml"));
        files.add(ROOT.resolve("server.xml"));
        return files;
    }

    private static List<Path> files(Path dir, String suffix) {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(List<Path> files) {
        return files.stream().map(ConfigurationReferenceTest::read).collect(Collectors.joining("\n"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
