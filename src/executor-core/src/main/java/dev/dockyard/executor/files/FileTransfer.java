package dev.dockyard.executor.files;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Moving whole files and trees in and out of the sandbox: uploads (a .zip is unpacked), zip
 * downloads and directory listings, all through the {@link PathGuard}. Unpacking checks every
 * entry against the destination (no zip-slip) and never follows or creates symbolic links.
 */
public final class FileTransfer {

    /** Upper bound of one upload, so that a runaway client cannot fill the disk in one request. */
    public static final long MAX_UPLOAD_BYTES = 1024L * 1024 * 1024;

    private final PathGuard guard;

    public FileTransfer(PathGuard guard) {
        this.guard = guard;
    }

    /** Where an upload goes: the destination must be absolute (OpenHands' rule) and allowed. */
    public Path destination(String destination, Path workingDir) {
        if (destination == null || !destination.startsWith("/")) {
            throw new IllegalArgumentException("Destination must be an absolute path");
        }
        return guard.check(destination, workingDir);
    }

    /** Stores an upload under {@code dir}; a zip is unpacked there instead. Returns the files written. */
    public int upload(Path dir, String filename, InputStream content, boolean recursive) throws IOException {
        String name = safeFileName(filename);
        boolean zip = name.toLowerCase(Locale.ROOT).endsWith(".zip");
        if (recursive && !zip) {
            throw new IllegalArgumentException("Recursive uploads must be zip files");
        }
        Files.createDirectories(dir);
        InputStream bounded = new BoundedInputStream(content, MAX_UPLOAD_BYTES);
        if (zip) {
            return unzip(dir, bounded);
        }
        Path target = guard.check(dir.resolve(name).toString(), dir);
        Files.copy(bounded, target, StandardCopyOption.REPLACE_EXISTING);
        return 1;
    }

    private int unzip(Path dir, InputStream content) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        int files = 0;
        try (ZipInputStream zip = new ZipInputStream(content)) {
            ZipEntry entry;
            while ((entry = zip.getNextEntry()) != null) {
                Path target = root.resolve(entry.getName()).normalize();
                if (!target.startsWith(root) || entry.getName().indexOf('\0') >= 0) {
                    throw new IllegalArgumentException("Refusing zip entry outside the destination: " + entry.getName());
                }
                // the real path too: a link already inside the destination must not lead out of it
                guard.check(target.toString(), root);
                if (!PathGuard.realPathOfLongestExistingPrefix(target).startsWith(
                        PathGuard.realPathOfLongestExistingPrefix(root))) {
                    throw new IllegalArgumentException("Refusing zip entry through a link: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.deleteIfExists(target);
                    Files.copy(zip, target);
                    files++;
                }
            }
        }
        return files;
    }

    /**
     * Writes {@code path} as a zip. For a directory the entries are relative to it ({@code A.txt},
     * {@code sub/B.txt}), as OpenHands' {@code os.path.relpath(file, path)}; like OpenHands, only
     * files are entries, except that an empty directory gets a {@code name/} entry so that it
     * survives the round trip. A single file (for which OpenHands' {@code os.walk} yields an empty
     * zip) is one entry named after the file. Links are never followed out of the tree.
     */
    public void download(Path path, OutputStream out) throws IOException {
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> tree = Files.walk(path)) {
                    for (Path p : (Iterable<Path>) tree.sorted()::iterator) {
                        if (!p.equals(path)) {
                            addEntry(zip, path, p);
                        }
                    }
                }
            } else {
                addEntry(zip, path.getParent() == null ? path : path.getParent(), path);
            }
        }
    }

    private static void addEntry(ZipOutputStream zip, Path base, Path p) throws IOException {
        String name = base.relativize(p).toString();
        if (Files.isSymbolicLink(p)) {
            return; // links are not followed out of the tree
        }
        if (Files.isDirectory(p)) {
            if (isEmptyDirectory(p)) {
                zip.putNextEntry(new ZipEntry(name + "/"));
                zip.closeEntry();
            }
        } else if (Files.isRegularFile(p)) {
            zip.putNextEntry(new ZipEntry(name));
            Files.copy(p, zip);
            zip.closeEntry();
        }
    }

    private static boolean isEmptyDirectory(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    /**
     * OpenHands' listing: names, directories suffixed "/", directories first, each group sorted
     * by Python's {@code s.lower()}. Links are followed ({@code os.path.exists}, {@code isdir}):
     * a link to a directory is a directory, and a dangling link is left out.
     */
    public List<String> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> directories = new ArrayList<>();
        List<String> files = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.forEach(p -> {
                String name = p.getFileName().toString();
                if (Files.isDirectory(p)) {
                    directories.add(name + "/");
                } else if (Files.exists(p)) {
                    files.add(name);
                }
            });
        }
        Comparator<String> order = Comparator.comparing(name -> name.toLowerCase(Locale.ROOT), FileTransfer::byCodePoint);
        directories.sort(order);
        files.sort(order);
        List<String> all = new ArrayList<>(directories);
        all.addAll(files);
        return all;
    }

    /** Python's str order: code point by code point (not UTF-16 unit by unit). */
    private static int byCodePoint(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static String safeFileName(String filename) {
        if (filename == null || filename.isBlank()) {
            throw new IllegalArgumentException("The upload has no file name");
        }
        String name = Path.of(filename.replace('\\', '/')).getFileName().toString();
        if (name.equals("..") || name.equals(".") || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("Invalid file name: " + filename);
        }
        return name;
    }

    /** Fails the copy once more than {@code limit} bytes came in. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private final long limit;
        private long count;

        BoundedInputStream(InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0 && ++count > limit) {
                throw new IOException("Upload larger than " + limit + " bytes refused");
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            int n = in.read(buffer, off, len);
            if (n > 0 && (count += n) > limit) {
                throw new IOException("Upload larger than " + limit + " bytes refused");
            }
            return n;
        }
    }
}
