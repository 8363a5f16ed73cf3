package dev.dockyard.backend.remote;

import dev.dockyard.executor.files.UnixModes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.OptionalInt;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * A workspace between the tar that migration moves (a Docker node's archive of
 * {@code /workspace/.}: entries {@code ./…}, owners and modes) and the zip that a Dockyard executor
 * downloads and unpacks (files and empty directories, their permission bits in
 * {@link UnixModes}' extra field). What one format has and the other cannot carry is left out and
 * counted: symbolic and hard links, devices and fifos (an executor's upload never creates a link),
 * owners (the unpacking user's, or {@code owner} in a tar made here) and times (a zip's are the
 * download's).
 */
final class WorkspaceArchives {

    private static final int CHUNK = 64 * 1024;

    private WorkspaceArchives() {
    }

    /** What a conversion left out, for the caller's message. */
    static final class Skipped {
        private int entries;
        private String first;

        void add(String name) {
            if (entries++ == 0) {
                first = name;
            }
        }

        int entries() {
            return entries;
        }

        @Override
        public String toString() {
            return entries == 0 ? "nothing" : entries + " entries that are not files or directories (e.g. " + first + ")";
        }
    }

    /**
     * The zip of a tar stream, made as it is read: regular files and directories, each with its
     * mode; the tar's own root ({@code ./}) is not an entry, so the directory it is unpacked into
     * keeps its own. Closing the zip closes the tar.
     */
    static InputStream zipOf(InputStream tar, Skipped skipped) {
        TarArchiveInputStream in = new TarArchiveInputStream(tar);
        return new PulledStream() {
            private final ZipOutputStream zip = new ZipOutputStream(sink());
            private final byte[] buffer = new byte[CHUNK];
            private boolean inEntry;

            @Override
            protected boolean step() throws IOException {
                if (inEntry) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        zip.closeEntry();
                        inEntry = false;
                    } else {
                        zip.write(buffer, 0, n);
                    }
                    return true;
                }
                TarArchiveEntry entry = in.getNextEntry();
                if (entry == null) {
                    zip.finish();
                    return false;
                }
                String name = relative(entry.getName());
                if (name == null) {
                    if (!isRoot(entry.getName())) {
                        skipped.add(entry.getName());
                    }
                    return true;
                }
                int permissions = entry.getMode() & UnixModes.PERMISSIONS;
                if (entry.isDirectory()) {
                    zip.putNextEntry(entry(name + "/", UnixModes.DIRECTORY | permissions, entry.getModTime().getTime()));
                    zip.closeEntry();
                } else if (regularFile(entry)) {
                    zip.putNextEntry(entry(name, UnixModes.REGULAR | permissions, entry.getModTime().getTime()));
                    inEntry = true;
                } else {
                    skipped.add(name);
                }
                return true;
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    /** A file with contents of its own (commons-compress counts links and devices among files). */
    private static boolean regularFile(TarArchiveEntry entry) {
        return entry.isFile() && !entry.isSymbolicLink() && !entry.isLink() && !entry.isCharacterDevice()
                && !entry.isBlockDevice() && !entry.isFIFO();
    }

    private static ZipEntry entry(String name, int mode, long modified) {
        ZipEntry entry = new ZipEntry(name);
        entry.setExtra(UnixModes.extra(mode));
        entry.setTime(modified);
        return entry;
    }

    /**
     * The tar of a downloaded zip (a file, read with its central directory, so every entry's size
     * is known before its header), made as it is read: entries {@code ./…} as a Docker node's
     * archive of {@code /workspace/.} has them, owned by {@code owner}, each file and directory
     * with the mode its entry carries (else 0644 and 0755), every directory a file is in
     * present before it (an engine would make a missing one as root). Closing the tar closes the
     * zip and deletes the file.
     */
    static InputStream tarOf(Path zipFile, int owner, Skipped skipped) throws IOException {
        ZipFile zip = new ZipFile(zipFile.toFile());
        Enumeration<? extends ZipEntry> entries = zip.entries();
        return new PulledStream() {
            private final TarArchiveOutputStream tar = tarStream();
            private final Set<String> directories = new HashSet<>();
            private final byte[] buffer = new byte[CHUNK];
            private InputStream data;

            private TarArchiveOutputStream tarStream() {
                TarArchiveOutputStream out = new TarArchiveOutputStream(sink());
                out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                return out;
            }

            @Override
            protected boolean step() throws IOException {
                if (data != null) {
                    int n = data.read(buffer);
                    if (n < 0) {
                        data.close();
                        data = null;
                        tar.closeArchiveEntry();
                    } else {
                        tar.write(buffer, 0, n);
                    }
                    return true;
                }
                if (!entries.hasMoreElements()) {
                    tar.finish();
                    return false;
                }
                ZipEntry entry = entries.nextElement();
                String name = relative(entry.getName());
                if (name == null) {
                    skipped.add(entry.getName());
                    return true;
                }
                OptionalInt mode = UnixModes.mode(entry.getExtra());
                parents(name);
                if (entry.isDirectory()) {
                    directory(name, mode.orElse(UnixModes.DIRECTORY | 0755));
                } else {
                    TarArchiveEntry file = tarEntry("./" + name, UnixModes.REGULAR
                            | (mode.orElse(0644) & UnixModes.PERMISSIONS), entry.getLastModifiedTime());
                    file.setSize(entry.getSize());
                    tar.putArchiveEntry(file);
                    data = zip.getInputStream(entry);
                }
                return true;
            }

            private void parents(String name) throws IOException {
                int slash = name.indexOf('/');
                while (slash > 0 && slash < name.length() - 1) {
                    String parent = name.substring(0, slash);
                    if (!directories.contains(parent)) {
                        directory(parent, UnixModes.DIRECTORY | 0755);
                    }
                    slash = name.indexOf('/', slash + 1);
                }
            }

            private void directory(String name, int mode) throws IOException {
                if (directories.add(name)) {
                    tar.putArchiveEntry(tarEntry("./" + name + "/", UnixModes.DIRECTORY
                            | (mode & UnixModes.PERMISSIONS), null));
                    tar.closeArchiveEntry();
                }
            }

            private TarArchiveEntry tarEntry(String name, int mode, FileTime modified) {
                TarArchiveEntry entry = new TarArchiveEntry(name);
                entry.setMode(mode);
                entry.setIds(owner, owner);
                if (modified != null) {
                    entry.setModTime(modified);
                }
                return entry;
            }

            @Override
            public void close() throws IOException {
                try {
                    if (data != null) {
                        data.close();
                    }
                    zip.close();
                } finally {
                    Files.deleteIfExists(zipFile);
                }
            }
        };
    }

    /** The tar's or zip's name below the workspace ({@code ./a/b} → {@code a/b}); null for its root or a name that leaves it. */
    static String relative(String name) {
        String path = name;
        while (path.startsWith("./")) {
            path = path.substring(2);
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.isEmpty() || path.equals(".") || path.startsWith("/") || path.indexOf('\0') >= 0) {
            return null;
        }
        for (String part : path.split("/")) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) {
                return null;
            }
        }
        return path;
    }

    private static boolean isRoot(String name) {
        return name.equals("./") || name.equals(".") || name.equals("/");
    }
}
