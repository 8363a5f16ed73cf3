package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.e2b.E2bApplication;
import dev.dockyard.runtimeapi.RuntimeApiApplication;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The three JAX-RS applications list their classes rather than scan: every resource and provider
 * of the {@code api} package must be listed by Dockyard's, and the Remote Runtime API's and E2B's
 * must have every provider too, or a new one would silently not apply.
 */
class ApplicationClassesTest {

    private static Set<String> annotatedIn(String pkg) throws IOException, URISyntaxException {
        java.nio.file.Path dir = Paths.get(ApplicationClassesTest.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI()).getParent().resolve("classes").resolve(pkg.replace('.', '/'));
        try (Stream<java.nio.file.Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".class"))
                    .map(n -> pkg + "." + n.substring(0, n.length() - 6).replace('$', '.'))
                    .map(ApplicationClassesTest::load).filter(c -> c != null
                            && (c.isAnnotationPresent(Provider.class) || c.isAnnotationPresent(Path.class)))
                    .map(Class::getCanonicalName).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static Class<?> load(String name) {
        int dot = name.lastIndexOf('.');
        for (String candidate : new String[] {name, name.substring(0, dot) + "$" + name.substring(dot + 1)}) {
            try {
                return Class.forName(candidate);
            } catch (ClassNotFoundException | NoClassDefFoundError e) {
                // a nested class: try its binary name
            }
        }
        return null;
    }

    private static Set<String> names(Set<Class<?>> classes) {
        return classes.stream().map(Class::getCanonicalName).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void shouldListEveryResourceAndProviderOfTheApi() throws Exception {
        Set<String> annotated = annotatedIn("dev.dockyard.api");
        assertTrue(annotated.size() >= 15, "found " + annotated);
        assertEquals(annotated, names(new DockyardApplication().getClasses()));
    }

    @Test
    void shouldGiveTheRuntimeApiEveryProvider() throws Exception {
        Set<String> listed = names(new RuntimeApiApplication().getClasses());
        annotatedIn("dev.dockyard.api").stream().filter(n -> !n.endsWith("Resource"))
                .forEach(provider -> assertTrue(listed.contains(provider), provider + " missing from " + listed));
        assertTrue(listed.containsAll(annotatedIn("dev.dockyard.runtimeapi")), listed.toString());
    }

    @Test
    void shouldGiveE2bsApiEveryProviderAndItsOwnClasses() throws Exception {
        Set<String> listed = names(new E2bApplication().getClasses());
        annotatedIn("dev.dockyard.api").stream().filter(n -> !n.endsWith("Resource"))
                .forEach(provider -> assertTrue(listed.contains(provider), provider + " missing from " + listed));
        assertTrue(listed.containsAll(annotatedIn("dev.dockyard.e2b")), listed.toString());
    }
}
