package dev.dockyard.executor.envd;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Map;

/**
 * envd's {@code EntryInfo} of a path, as E2B's shared filesystem package builds it from
 * {@code os.Lstat}: the entry itself is never followed, except that a symbolic link reports its
 * target's type and permission bits (its {@code symlinkTarget} the resolved path, or itself when it
 * dangles, and then type UNSPECIFIED, which the SDK's list skips). {@code mode} holds the
 * permission bits only ({@code FileMode.Perm()}), {@code permissions} Go's
 * {@code FileMode.String()} of the entry, e.g. {@code drwxr-xr-x} or {@code Lrwxrwxrwx};
 * {@code metadata} what an upload stored ({@link FileMetadata}).
 */
final class EntryInfos {

    static final String FILE = "FILE_TYPE_FILE";
    static final String DIRECTORY = "FILE_TYPE_DIRECTORY";
    static final String UNSPECIFIED = "FILE_TYPE_UNSPECIFIED";

    // Go's os.FileMode type bits, in the order FileMode.String() prints them ("dalTLDpSugct?")
    private static final int MODE_DIR = 1 << 31;
    private static final int MODE_SYMLINK = 1 << 27;
    private static final int MODE_DEVICE = 1 << 26;
    private static final int MODE_NAMED_PIPE = 1 << 25;
    private static final int MODE_SOCKET = 1 << 24;
    private static final int MODE_SETUID = 1 << 23;
    private static final int MODE_SETGID = 1 << 22;
    private static final int MODE_CHAR_DEVICE = 1 << 21;
    private static final int MODE_STICKY = 1 << 20;
    private static final String TYPE_LETTERS = "dalTLDpSugct?";

    private EntryInfos() {
    }

    /** The entry at {@code path} (shown as {@code shownPath}); NoSuchFileException when there is none. */
    static JsonObject of(Path path, Path shownPath) throws IOException {
        Map<String, Object> stat = Files.readAttributes(path, "unix:mode,size,lastModifiedTime",
                LinkOption.NOFOLLOW_LINKS);
        PosixFileAttributes posix = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        int unixMode = (Integer) stat.get("mode");
        int goMode = goFileMode(unixMode);
        String type;
        int permissions;
        JsonObjectBuilder entry = Jsonp.createObjectBuilder();
        if ((goMode & MODE_SYMLINK) != 0) {
            Path target;
            try {
                target = path.toRealPath();
            } catch (IOException e) {
                target = null;
            }
            entry.add("symlinkTarget", (target == null ? path : target).toString());
            if (target == null) {
                type = UNSPECIFIED;
                permissions = 0;
            } else {
                int targetMode = (Integer) Files.getAttribute(target, "unix:mode");
                type = type(goFileMode(targetMode));
                permissions = targetMode & 0777;
            }
        } else {
            type = type(goMode);
            permissions = unixMode & 0777;
        }
        Path name = shownPath.getFileName();
        FileMetadata.addTo(entry, path);
        return entry.add("name", name == null ? "/" : name.toString())
                .add("type", type)
                .add("path", shownPath.toString())
                .add("size", String.valueOf((Long) stat.get("size")))
                .add("mode", permissions)
                .add("permissions", permissionString(goMode))
                .add("owner", posix.owner().getName())
                .add("group", posix.group().getName())
                .add("modifiedTime", ((FileTime) stat.get("lastModifiedTime")).toInstant().toString())
                .build();
    }

    private static String type(int goMode) {
        if ((goMode & MODE_DIR) != 0) {
            return DIRECTORY;
        }
        return (goMode & (MODE_SYMLINK | MODE_DEVICE | MODE_NAMED_PIPE | MODE_SOCKET | MODE_CHAR_DEVICE)) == 0
                ? FILE : UNSPECIFIED;
    }

    /** Go's os.FileMode of a stat(2) {@code st_mode}, as os.Lstat makes it. */
    static int goFileMode(int unixMode) {
        int mode = unixMode & 0777;
        switch (unixMode & 0170000) {
            case 0060000 -> mode |= MODE_DEVICE;
            case 0020000 -> mode |= MODE_DEVICE | MODE_CHAR_DEVICE;
            case 0040000 -> mode |= MODE_DIR;
            case 0010000 -> mode |= MODE_NAMED_PIPE;
            case 0120000 -> mode |= MODE_SYMLINK;
            case 0140000 -> mode |= MODE_SOCKET;
            default -> {
                // a regular file has no type bit
            }
        }
        if ((unixMode & 04000) != 0) {
            mode |= MODE_SETUID;
        }
        if ((unixMode & 02000) != 0) {
            mode |= MODE_SETGID;
        }
        if ((unixMode & 01000) != 0) {
            mode |= MODE_STICKY;
        }
        return mode;
    }

    /** Go's FileMode.String(): a letter per type bit set ("-" for none), then rwxrwxrwx. */
    static String permissionString(int goMode) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < TYPE_LETTERS.length(); i++) {
            if ((goMode & (1 << (31 - i))) != 0) {
                text.append(TYPE_LETTERS.charAt(i));
            }
        }
        if (text.length() == 0) {
            text.append('-');
        }
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            text.append((goMode & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        return text.toString();
    }
}
