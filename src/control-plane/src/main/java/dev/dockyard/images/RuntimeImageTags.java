package dev.dockyard.images;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The three tags of a runtime image (OpenHands' scheme), most general first:
 * <ul>
 *   <li>versioned {@code dy_v{version}_{base, sanitised, last 96 chars}}: this Dockyard version on
 *       this base with no extra dependencies. Only a build without extra dependencies applies it,
 *       so it always names a clean image that any later build on the base may start from;</li>
 *   <li>lock {@code dy_v{version}_{16 hex of hash(base, executor dependency lock, Liberty version,
 *       extra dependencies)}}: everything but the executor's own code is the same;</li>
 *   <li>source {@code {lock}_{16 hex of hash(executor bundle contents)}}: exactly this image.</li>
 * </ul>
 * A source-tag hit needs no build; a lock-tag hit rebuilds only the bundle layer on top of it.
 * Every runtime image also carries {@link #EXTRA_DEPS_LABEL}: what users put into it, so that an
 * image is only ever started from by a build that asked for exactly that ({@link ReuseChain}).
 *
 * @param extraDeps {@link #NO_EXTRA_DEPS}, or 16 hex of the extra dependencies' hash
 */
public record RuntimeImageTags(String repository, String versioned, String lock, String source, String extraDeps) {

    /** The label naming a runtime image's extra dependencies, as {@link #extraDeps()}. */
    public static final String EXTRA_DEPS_LABEL = "dev.dockyard.extra-deps";
    public static final String NO_EXTRA_DEPS = "none";

    public static final String DEFAULT_REPOSITORY = "dockyard/runtime";
    private static final int MAX_BASE_CHARS = 96;
    private static final Pattern TAG = Pattern.compile("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$");

    /**
     * @param bundleHash {@link #bundleHash(Path)} of the executor bundle
     */
    public static RuntimeImageTags of(String repository, String version, String baseImage, String dependencyLock,
                                      String libertyVersion, ExtraDependencies extra, String bundleHash) {
        String prefix = "dy_v" + sanitise(version) + "_";
        String versioned = prefix + lastChars(sanitise(baseImage), MAX_BASE_CHARS);
        String extraDeps = extra.isEmpty() ? NO_EXTRA_DEPS
                : hash(String.join("\n", extra.aptPackages()), extra.script()).substring(0, 16);
        String lock = prefix + hash(baseImage, dependencyLock, libertyVersion, String.join("\n", extra.aptPackages()),
                extra.script()).substring(0, 16);
        String source = lock + "_" + bundleHash.substring(0, 16);
        for (String tag : List.of(versioned, lock, source)) {
            if (!TAG.matcher(tag).matches()) {
                throw new IllegalArgumentException("not a valid Docker tag: " + tag);
            }
        }
        return new RuntimeImageTags(repository, versioned, lock, source, extraDeps);
    }

    /** '/' becomes _s_, ':' _t_, '@' _a_; anything else a tag cannot hold becomes '_'. */
    static String sanitise(String name) {
        return name.replace("/", "_s_").replace(":", "_t_").replace("@", "_a_").replaceAll("[^A-Za-z0-9_.-]", "_");
    }

    private static String lastChars(String s, int n) {
        String tail = s.length() <= n ? s : s.substring(s.length() - n);
        // a tag may not start with '.' or '-'
        return tail.replaceFirst("^[.-]", "_");
    }

    /** Whether the image has nothing of a user's in it: only then may it carry the versioned tag. */
    public boolean clean() {
        return NO_EXTRA_DEPS.equals(extraDeps);
    }

    /** The images a build of these tags applies: the versioned one only when it is clean. */
    public Set<String> applied() {
        return clean() ? Set.of(image(source), image(lock), image(versioned)) : Set.of(image(source), image(lock));
    }

    public String image(String tag) {
        return repository + ":" + tag;
    }

    /** Every input is length-prefixed, so that no two different input lists hash alike. */
    static String hash(String... parts) {
        MessageDigest digest = sha256();
        for (String part : parts) {
            byte[] bytes = (part == null ? "" : part).getBytes(StandardCharsets.UTF_8);
            digest.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
            digest.update(bytes);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * A hash of a bundle directory's contents: every file's relative path, executable bit and
     * bytes, in path order. Timestamps and owners do not count, so a rebuild of the same bundle
     * hashes the same.
     */
    public static String bundleHash(Path bundle) throws IOException {
        MessageDigest digest = sha256();
        List<Path> files;
        try (Stream<Path> tree = Files.walk(bundle)) {
            files = tree.filter(Files::isRegularFile).sorted().toList();
        }
        byte[] chunk = new byte[64 * 1024];
        for (Path file : files) {
            String relative = bundle.relativize(file).toString().replace('\\', '/');
            digest.update((relative + (Files.isExecutable(file) ? ":x:" : ":-:") + Files.size(file) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            try (InputStream in = Files.newInputStream(file)) {
                int n;
                while ((n = in.read(chunk)) > 0) {
                    digest.update(chunk, 0, n);
                }
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }
}
