package dev.dockyard.application.images;

import dev.dockyard.backend.RuntimeImageBuilder.ImageInfo;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Image references as Docker shows them ("familiar": {@code python:3.12}, not
 * {@code docker.io/library/python:3.12}), and whether a reference names an image in full. The
 * engine also finds an image by any unique prefix of its id ({@code c2}); a reference names the
 * image it found only if it is one of the image's tags or digests, or its whole id.
 */
final class ImageNames {

    private static final Pattern FULL_ID = Pattern.compile("sha256:[a-f0-9]{64}");

    private ImageNames() {
    }

    /** Whether {@code reference} names {@code image} by a tag, a repository digest or its whole id. */
    static boolean names(String reference, ImageInfo image) {
        if (FULL_ID.matcher(reference).matches()) {
            return reference.equals(image.id());
        }
        if (image.tags().contains(reference) || image.digests().contains(reference)) {
            return true;
        }
        int at = reference.indexOf('@');
        if (at >= 0) {
            // repo[:tag]@sha256:...: the engine goes by the digest, whatever the tag says
            String digest = familiar(reference.substring(0, at)).replaceFirst(":[^:/]*$", "")
                    + reference.substring(at);
            return image.digests().stream().map(ImageNames::familiarDigest).anyMatch(digest::equals);
        }
        String name = familiar(reference);
        return image.tags().stream().map(ImageNames::familiar).anyMatch(name::equals);
    }

    /** Whether one of the image's tags is {@code name}. */
    static boolean taggedAs(ImageInfo image, String name) {
        if (name == null || name.isBlank()) {
            return false;
        }
        String wanted = familiar(name.strip());
        return image.tags().stream().map(ImageNames::familiar).anyMatch(wanted::equals);
    }

    /** Whether one of the image's tags is in {@code repository}. */
    static boolean inRepository(ImageInfo image, String repository) {
        String prefix = familiar(repository).replaceFirst(":latest$", "") + ":";
        return image.tags().stream().map(ImageNames::familiar).anyMatch(t -> t.startsWith(prefix));
    }

    /** Whether a tag or a digest of the image matches one of the glob {@code patterns}. */
    static boolean matchesAny(ImageInfo image, List<String> patterns) {
        if (patterns.isEmpty()) {
            return false;
        }
        List<Pattern> globs = patterns.stream().map(ImageNames::glob).toList();
        return Stream.concat(image.tags().stream().map(ImageNames::familiar),
                        image.digests().stream().map(ImageNames::familiarDigest))
                .anyMatch(name -> globs.stream().anyMatch(g -> g.matcher(name).matches()));
    }

    /**
     * A pattern of {@code dockyard.images.allowed}: {@code *} any characters (a {@code /} too); a
     * pattern with neither a tag, a digest nor a {@code *} matches every tag and digest of its repository.
     */
    static Pattern glob(String pattern) {
        String p = withoutDefaultRegistry(pattern.strip());
        StringBuilder regex = new StringBuilder(Stream.of(p.split("\\*", -1))
                .map(part -> part.isEmpty() ? "" : Pattern.quote(part)).collect(Collectors.joining(".*")));
        if (!p.contains("*") && !p.contains("@") && !hasTag(p)) {
            regex.append("[:@].*");
        }
        return Pattern.compile(regex.toString());
    }

    /** {@code docker.io/library/x} as {@code x}, and a reference without a tag or digest at {@code :latest}. */
    static String familiar(String reference) {
        String name = withoutDefaultRegistry(reference);
        return name.contains("@") || hasTag(name) ? name : name + ":latest";
    }

    private static String withoutDefaultRegistry(String reference) {
        String name = reference;
        for (String prefix : List.of("docker.io/", "index.docker.io/", "registry-1.docker.io/")) {
            if (name.startsWith(prefix)) {
                name = name.substring(prefix.length());
                break;
            }
        }
        return name.startsWith("library/") ? name.substring("library/".length()) : name;
    }

    private static String familiarDigest(String digest) {
        int at = digest.indexOf('@');
        return at < 0 ? digest : familiar(digest.substring(0, at)).replaceFirst(":latest$", "") + digest.substring(at);
    }

    /** A tag is a {@code :} after the last {@code /} (before it, a registry's port). */
    private static boolean hasTag(String name) {
        return name.lastIndexOf(':') > name.lastIndexOf('/');
    }
}
