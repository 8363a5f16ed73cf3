package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The file operations a local node does on trees its sandboxes may have changed: a sandbox's
 * directory is its user's, and that user (or a co-tenant of it) may have put a link anywhere in
 * it, or swap a directory for one while the control plane works there. So nothing here follows a
 * link: a tree is deleted and given to the sandbox user name by name, each directory opened
 * relative to its parent's open descriptor ({@link SecureDirectoryStream}: openat, unlinkat,
 * renameat), and a path of the control plane's own is created so that the sandbox user can pass
 * through it whatever the server's umask.
 */
final class SafeTree {

    private static final Logger LOG = Logger.getLogger(SafeTree.class.getName());

    private SafeTree() {
    }

    /**
     * Creates {@code dir} and its missing parents with mode 755 whatever the umask (Liberty's is
     * 027): the sandbox user must pass through them to its own directory and to the bundle.
     */
    static void createReachable(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        List<Path> missing = new ArrayList<>();
        for (Path p = absolute; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p);
            } catch (FileAlreadyExistsException e) {
                continue;
            }
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /** {@code dir} opened for calls relative to it (openat, renameat), as Linux gives it. */
    static SecureDirectoryStream<Path> openDirectory(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw new IOException("this platform cannot open " + dir + " for calls relative to it");
    }

    /**
     * Gives the tree at {@code path} to {@code user}, links themselves and not what they point to;
     * nothing when sandboxes run as the control plane's own user.
     */
    static void chown(Path path, SandboxUser user) throws IOException {
        if (!user.switched()) {
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                own(dir, user);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                own(file, user);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Gives {@code path} itself (a link is not followed) to {@code user}. */
    static void own(Path path, SandboxUser user) throws IOException {
        Files.setAttribute(path, "unix:uid", user.uid(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", user.gid(), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Deletes a tree without following its links (a sandbox's links may point anywhere). Each
     * directory is opened relative to its parent's open descriptor and never through a link, and
     * each name removed relative to it: a co-tenant of the sandbox user that swaps a directory of
     * the tree for a link while it is being deleted makes the deletion fail, never reach outside.
     */
    static void deleteTree(Path root) {
        Path absolute = root.toAbsolutePath();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (SecureDirectoryStream<Path> parent = openDirectory(absolute.getParent())) {
            deleteEntry(parent, absolute);
        } catch (IOException e) {
            throw new BackendException("could not remove " + root + ": " + e.getMessage(), e);
        }
    }

    /** Deletes {@code entry} (its name relative to {@code parent}, its whole path for messages). */
    private static void deleteEntry(SecureDirectoryStream<Path> parent, Path entry) throws IOException {
        Path name = entry.getFileName();
        BasicFileAttributes attributes;
        try {
            attributes = parent.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return;
        }
        if (!attributes.isDirectory()) {
            parent.deleteFile(name);
            return;
        }
        try (SecureDirectoryStream<Path> dir = openEntry(parent, entry)) {
            List<Path> entries = new ArrayList<>();
            dir.forEach(entries::add);
            for (Path child : entries) {
                deleteEntry(dir, child);
            }
        }
        try {
            parent.deleteDirectory(name);
        } catch (NoSuchFileException e) {
            // gone meanwhile
        }
    }

    /** The directory {@code entry} of {@code parent}, never through a link. */
    private static SecureDirectoryStream<Path> openEntry(SecureDirectoryStream<Path> parent, Path entry)
            throws IOException {
        try {
            return parent.newDirectoryStream(entry.getFileName(), LinkOption.NOFOLLOW_LINKS);
        } catch (AccessDeniedException e) {
            // a directory the sandbox made unreadable to its owner is still that owner's to empty.
            // Only a control plane that is not root is refused (root reads any directory), and its
            // sandboxes run as itself: a link swapped in here leads only to what they own alike
            Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rwx------"));
            return parent.newDirectoryStream(entry.getFileName(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    /** Deletes {@code file} if it is there; a failure is logged, not thrown (a cleanup goes on). */
    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete " + file, e);
        }
    }
}
