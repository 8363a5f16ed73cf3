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
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
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
 *       {@code ~/.cache/dockyard-executor/<the WAR's SHA-256>}, in a directory only its user may
 *       enter: a class path another user could write is code run with this one's session key),
 *       then runs.</li>
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
        Path dir = home != null && !home.isBlank() ? Path.of(home) : privateCache().resolve(digest(war));
        if (!Files.isRegularFile(dir.resolve(CLASSPATH_FILE))) {
            extract(war, dir);
        }
        run(dir, args);
    }

    /**
     * {@code ~/.cache/dockyard-executor}, mode 700 and this user's: refused otherwise, since whoever
     * can write there chooses the code this JVM runs.
     */
    static Path privateCache() throws IOException {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "dockyard-executor");
        Files.createDirectories(cache.getParent());
        if (!Files.isDirectory(cache)) {
            try {
                Files.createDirectory(cache, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // another JVM made it first: checked below like any other
            }
        }
        UserPrincipal me = cache.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        if (!Files.getOwner(cache, LinkOption.NOFOLLOW_LINKS).equals(me)
                || !Files.getPosixFilePermissions(cache, LinkOption.NOFOLLOW_LINKS).equals(PosixFilePermissions.fromString("rwx------"))) {
            throw new IOException(cache + " must be a directory of " + me.getName() + " with mode 700: the executor "
                    + "would run the jars in it (set DOCKYARD_EXECUTOR_HOME to lay the WAR out elsewhere)");
        }
        return cache;
    }

    /** The WAR's SHA-256 (16 hex digits): another build is laid out apart, never over a running one. */
    static String digest(Path war) throws IOException {
        try (InputStream in = Files.newInputStream(war)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[65536];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                sha.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path ownWar() throws URISyntaxException {
        return Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * Writes the class path under {@code dir}: into a sibling directory first, renamed into place,
     * so that a second JVM laying out the same WAR at the same time never starts from half a copy.
     */
    static void extract(Path war, Path dir) throws IOException {
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !isLayout(dir)) {
            // never a tree of someone's files (DOCKYARD_EXECUTOR_HOME=$HOME, --extract .): only a
            // directory this launcher laid out is replaced
            throw new IOException(dir + " is neither empty nor a layout of the executor WAR (no " + CLASSPATH_FILE
                    + " file): choose an empty or new directory");
        }
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
                    // the WAR's own entry time (fixed by the build's outputTimestamp): the same WAR
                    // lays out byte for byte the same jar, so an image's layer of it is reused
                    JarEntry copy = new JarEntry(name.substring("WEB-INF/classes/".length()));
                    copy.setTime(entry.getTime());
                    classes.putNextEntry(copy);
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
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            removeLayout(dir);
        }
        try {
            Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            removeLayout(staging);
            if (!Files.isRegularFile(dir.resolve(CLASSPATH_FILE))) {
                throw e;
            }
            // another JVM laid the same WAR out first: use its copy
        }
    }

    /** An empty directory, or one whose files are all named by its class path file (and that file). */
    private static boolean isLayout(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        Set<String> ours = new HashSet<>();
        Path classpath = dir.resolve(CLASSPATH_FILE);
        if (Files.isRegularFile(classpath, LinkOption.NOFOLLOW_LINKS)) {
            ours.add(CLASSPATH_FILE);
            for (String line : Files.readAllLines(classpath, StandardCharsets.UTF_8)) {
                ours.add(line.trim());
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.allMatch(f -> ours.contains(f.getFileName().toString())
                    && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS));
        }
    }

    /** Removes a layout {@link #isLayout} accepted: its files, then the directory. */
    private static void removeLayout(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dir);
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
}
