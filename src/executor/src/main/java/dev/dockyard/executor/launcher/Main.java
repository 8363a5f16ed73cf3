package dev.dockyard.executor.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * {@code java -jar executor.war}: the executor WAR runs itself, as {@code jenkins.war} does. This
 * class sits at the WAR's root (the manifest's Main-Class), outside {@code WEB-INF}, and uses
 * nothing but {@code java.base}. It lays the WAR out as a class path — {@code WEB-INF/classes} as
 * one jar, {@code WEB-INF/lib} (the executor core and protocol) and {@code WEB-INF/embedded} (the
 * JSON-P implementation an app server provides itself, kept out of the web application's class
 * path so that Liberty never sees it) — and starts {@code EmbeddedExecutor} from it.
 *
 * <ul>
 *   <li>{@code java -jar executor.war}: lays out once under {@code DOCKYARD_EXECUTOR_HOME} (default:
 *       a directory in {@code java.io.tmpdir} named after the WAR's size and date), then runs.</li>
 *   <li>{@code java -jar executor.war --extract DIR}: lays out under {@code DIR} and exits. The
 *       sandbox image does this at build time, and {@code start-executor} starts the JVM on the
 *       jars {@code DIR/classpath} names (one a line, relative to {@code DIR}) directly: its class archive (the AOT cache) needs jars named on the
 *       command line, and the boot skips this class loader.</li>
 * </ul>
 */
public final class Main {

    static final String ENTRY_CLASS = "dev.dockyard.executor.embedded.EmbeddedExecutor";
    static final String CLASSES_JAR = "executor-classes.jar";
    static final String CLASSPATH_FILE = "classpath";

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        Path war = ownWar();
        if (args.length == 2 && args[0].equals("--extract")) {
            Path dir = Path.of(args[1]).toAbsolutePath();
            extract(war, dir);
            System.out.println("executor laid out in " + dir + " (class path in " + dir.resolve(CLASSPATH_FILE) + ")");
            return;
        }
        if (args.length > 0) {
            System.err.println("usage: java -jar executor.war [--extract DIR]");
            System.exit(2);
        }
        String home = System.getenv("DOCKYARD_EXECUTOR_HOME");
        Path dir = home != null && !home.isBlank() ? Path.of(home)
                : Path.of(System.getProperty("java.io.tmpdir"),
                        "dockyard-executor-" + Files.size(war) + "-" + Files.getLastModifiedTime(war).toMillis());
        if (!Files.isRegularFile(dir.resolve(CLASSPATH_FILE))) {
            extract(war, dir);
        }
        run(dir, args);
    }

    private static Path ownWar() throws URISyntaxException {
        return Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * Writes the class path under {@code dir}: into a sibling directory first, renamed into place,
     * so that a second JVM laying out the same WAR at the same time never starts from half a copy.
     */
    static void extract(Path war, Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path staging = Files.createTempDirectory(parent, dir.getFileName() + ".");
        List<String> jars = new ArrayList<>();
        try (ZipFile zip = new ZipFile(war.toFile());
             JarOutputStream classes = new JarOutputStream(Files.newOutputStream(staging.resolve(CLASSES_JAR)))) {
            jars.add(CLASSES_JAR);
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                String name = entry.getName();
                if (entry.isDirectory()) {
                    continue;
                }
                if (name.startsWith("WEB-INF/classes/")) {
                    classes.putNextEntry(new JarEntry(name.substring("WEB-INF/classes/".length())));
                    try (InputStream in = zip.getInputStream(entry)) {
                        in.transferTo(classes);
                    }
                    classes.closeEntry();
                } else if (isLibrary(name, "WEB-INF/lib/") || isLibrary(name, "WEB-INF/embedded/")) {
                    String jar = name.substring(name.lastIndexOf('/') + 1);
                    try (InputStream in = zip.getInputStream(entry)) {
                        Files.copy(in, staging.resolve(jar), StandardCopyOption.REPLACE_EXISTING);
                    }
                    jars.add(jar);
                }
            }
        }
        // the jars' names, one a line, in a fixed order (the AOT cache compares the class path with
        // the one it was trained on); relative, so that the directory can move (a bundle built in
        // target/ and copied to /dockyard in the image)
        StringBuilder path = new StringBuilder();
        for (String jar : jars.stream().sorted().toList()) {
            path.append(jar).append('\n');
        }
        try (OutputStream out = Files.newOutputStream(staging.resolve(CLASSPATH_FILE))) {
            out.write(path.toString().getBytes(StandardCharsets.UTF_8));
        }
        if (Files.exists(dir)) {
            deleteTree(dir);
        }
        try {
            Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteTree(staging);
            if (!Files.isRegularFile(dir.resolve(CLASSPATH_FILE))) {
                throw e;
            }
            // another JVM laid the same WAR out first: use its copy
        }
    }

    private static boolean isLibrary(String name, String folder) {
        return name.startsWith(folder) && name.endsWith(".jar") && name.indexOf('/', folder.length()) < 0;
    }

    private static void run(Path dir, String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : Files.readAllLines(dir.resolve(CLASSPATH_FILE), StandardCharsets.UTF_8)) {
            if (entry.isBlank()) {
                continue;
            }
            try {
                urls.add(dir.resolve(entry.trim()).toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IOException("bad class path entry " + entry, e);
            }
        }
        ClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        Method main = loader.loadClass(ENTRY_CLASS).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception exception) {
                throw exception;
            }
            throw (Error) e.getCause();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
