package dev.dockyard.backend.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * A remote node's API key: given in config, or kept in a file that is read again whenever it
 * changes (its modification time, size or file: an atomic replace is a new file), so that a rotated key — a Kubernetes Secret mounted as
 * a file is updated in place — is sent from the next call on, without a restart. The file must be
 * readable and not empty when the control plane starts; a file that later cannot be read keeps the
 * last key read, and the next change is picked up.
 */
final class RemoteKey {

    private static final Logger LOG = Logger.getLogger(RemoteKey.class.getName());

    private final String setting;
    private final Path file;
    private String key;
    private FileTime modified;
    private long size;
    private Object fileKey;
    private boolean warned;

    private RemoteKey(String setting, Path file, String key) {
        this.setting = setting;
        this.file = file;
        this.key = key;
    }

    static RemoteKey given(String key) {
        return new RemoteKey(null, null, key);
    }

    /**
     * The key in {@code file}, read now.
     *
     * @throws IllegalStateException naming {@code setting} when it cannot be read or is empty
     */
    static RemoteKey inFile(String setting, Path file) {
        RemoteKey key = new RemoteKey(setting, file, null);
        try {
            key.read();
        } catch (IOException e) {
            throw new IllegalStateException(setting + ": cannot read " + file + ": " + e.getClass().getSimpleName());
        }
        return key;
    }

    /** The key to send now. */
    synchronized String current() {
        if (file != null) {
            try {
                read();
            } catch (IOException | IllegalStateException unreadable) {
                // kept: the last key read; a rotation writes the file again. Said once, not at every call
                if (!warned) {
                    warned = true;
                    LOG.warning(setting + ": " + file + " cannot be read now (" + unreadable.getClass().getSimpleName()
                            + "); the last key read is sent until it can");
                }
            }
        }
        return key;
    }

    private void read() throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (attributes.lastModifiedTime().equals(modified) && attributes.size() == size
                && Objects.equals(attributes.fileKey(), fileKey)) {
            return;
        }
        String read = Files.readString(file).strip();
        if (read.isEmpty()) {
            throw new IllegalStateException(setting + ": " + file + " is empty");
        }
        key = read;
        modified = attributes.lastModifiedTime();
        size = attributes.size();
        fileKey = attributes.fileKey();
        warned = false;
    }

    @Override
    public String toString() {
        // never the key
        return file == null ? "RemoteKey[given]" : "RemoteKey[" + file + "]";
    }
}
