package dev.dockyard.executor.files;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Moving whole files and trees in and out of the sandbox: uploads (a .zip is unpacked), zip
 * downloads and directory listings, all through the {@link PathGuard}. Unpacking checks every
 * entry against the destination (no zip-slip) and never follows or creates symbolic links.
 *
 * <p>A download's entries carry their file's permission bits ({@link UnixModes}), and an unpacked
 * entry that carries them gets them (rwx bits only; a directory's once everything is unpacked, so
 * that a read-only one still takes its files), so that a tree keeps its executables when it moves
 * from one sandbox to another (a workspace migrated through a remote node). An entry without them
 * gets the defaults, as before.
 */
public final class FileTransfer {

    /** Upper bound of one upload, so that a runaway client cannot fill the disk in one request. */
    public static final long MAX_UPLOAD_BYTES = 1024L * 1024 * 1024;

    /** What a zip starts with: a local file header, or the end record of an empty zip. */
    private static final List<byte[]> ZIP_STARTS = List.of(new byte[] {'P', 'K', 3, 4}, new byte[] {'P', 'K', 5, 6});

    private final PathGuard guard;
    private final long maxUploadBytes;

    public FileTransfer(PathGuard guard) {
        this(guard, MAX_UPLOAD_BYTES);
    }

    FileTransfer(PathGuard guard, long maxUploadBytes) {
        this.guard = guard;
        this.maxUploadBytes = maxUploadBytes;
    }

    /** An upload over the bound: the client's to make smaller (HTTP 413), not the executor's failure. */
    public static final class UploadTooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        public UploadTooLargeException(long limit) {
            super("Upload larger than " + limit + " bytes refused");
        }
    }

    /** Where an upload goes: the destination must be absolute (OpenHands' rule) and allowed. */
    public Path destination(String destination, Path workingDir) {
        if (destination == null || !destination.startsWith("/")) {
            throw new IllegalArgumentException("Destination must be an absolute path");
        }
        return guard.check(destination, workingDir);
    }

    /**
     * Stores an upload under {@code dir}; a zip is unpacked there instead. Returns the files written.
     *
     * @throws IllegalArgumentException for a name, a destination or a zip the client got wrong
     *                                  (a malformed or cut zip too; what came before stays unpacked)
     * @throws UploadTooLargeException  once more than the bound came in
     */
    public int upload(Path dir, String filename, InputStream content, boolean recursive) throws IOException {
        String name = safeFileName(filename);
        boolean zip = name.toLowerCase(Locale.ROOT).endsWith(".zip");
        if (recursive && !zip) {
            throw new IllegalArgumentException("Recursive uploads must be zip files");
        }
        Files.createDirectories(dir);
        InputStream bounded = new BoundedInputStream(content, maxUploadBytes);
        if (zip) {
            return unzip(dir, bounded);
        }
        Path target = guard.check(dir.resolve(name).toString(), dir);
        // written beside it under a name of its own and moved into place once whole: an upload cut
        // short (its client went away, the body ended early) leaves no half file and the old one as it was
        Path partial = dir.resolve(".upload-" + Long.toHexString(System.nanoTime()));
        try {
            try (OutputStream out = Files.newOutputStream(partial, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                bounded.transferTo(out);
            }
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
        return 1;
    }

    private int unzip(Path dir, InputStream upload) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        int files = 0;
        InputStream content = new BufferedInputStream(upload);
        // ZipInputStream finds no entry in what is no zip at all, and would take it for an empty one
        content.mark(4);
        byte[] start = content.readNBytes(4);
        content.reset();
        if (ZIP_STARTS.stream().noneMatch(z -> Arrays.equals(z, start))) {
            throw new IllegalArgumentException("Malformed zip file: it does not start as a zip does");
        }
        // applied last, deepest first: a directory that is not writable (or searchable) still takes its files
        Map<Path, Integer> directoryModes = new LinkedHashMap<>();
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
                OptionalInt mode = UnixModes.mode(entry.getExtra());
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                    if (mode.isPresent() && !target.equals(root)) {
                        directoryModes.put(target, mode.getAsInt());
                    }
                } else {
                    Files.createDirectories(target.getParent());
                    Files.deleteIfExists(target);
                    Files.copy(zip, target);
                    if (mode.isPresent()) {
                        applyMode(target, mode.getAsInt());
                    }
                    files++;
                }
            }
        } catch (ZipException | EOFException e) {
            // a malformed or cut zip (the bound's own exception is neither)
            throw new IllegalArgumentException("Malformed zip file: " + e.getMessage(), e);
        }
        directoryModes.entrySet().stream()
                .sorted(Comparator.comparingInt((Map.Entry<Path, Integer> e) -> e.getKey().getNameCount()).reversed())
                .forEach(e -> applyMode(e.getKey(), e.getValue()));
        return files;
    }

    /** Gives an unpacked file its carried rwx bits; a file system without POSIX modes keeps its defaults. */
    private static void applyMode(Path target, int mode) {
        try {
            Files.setPosixFilePermissions(target, UnixModes.permissions(mode & UnixModes.PERMISSIONS));
        } catch (UnsupportedOperationException | IOException e) {
            // the file is there with the defaults: the contents are what was asked for
        }
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
                zip.putNextEntry(withMode(new ZipEntry(name + "/"), p, UnixModes.DIRECTORY));
                zip.closeEntry();
            }
        } else if (Files.isRegularFile(p)) {
            zip.putNextEntry(withMode(new ZipEntry(name), p, UnixModes.REGULAR));
            Files.copy(p, zip);
            zip.closeEntry();
        }
    }

    /** The entry carrying the file's permission bits, when the file system has them. */
    private static ZipEntry withMode(ZipEntry entry, Path p, int type) {
        try {
            entry.setExtra(UnixModes.extra(type | UnixModes.bits(Files.getPosixFilePermissions(p,
                    LinkOption.NOFOLLOW_LINKS))));
        } catch (UnsupportedOperationException | IOException e) {
            // no modes to carry: the entry is as OpenHands' is
        }
        return entry;
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
                throw new UploadTooLargeException(limit);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            int n = in.read(buffer, off, len);
            if (n > 0 && (count += n) > limit) {
                throw new UploadTooLargeException(limit);
            }
            return n;
        }
    }
}
