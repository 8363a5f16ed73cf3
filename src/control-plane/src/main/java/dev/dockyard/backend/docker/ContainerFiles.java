package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.dockyard.backend.BackendException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Files into and out of a container, as tar archives through the engine (which works on a
 * created container before it starts, and on a read-only root's volumes). In: the executor's
 * session key and plugin list, handed in before each start because the executor deletes its key
 * file once read; the environment file of an image's own process ({@link ProcessLaunch}). Out and
 * back: any directory, for a user's download or an upload.
 */
final class ContainerFiles {

    /** Where the executor image expects its session key (see SESSION_API_KEY_FILE in the image). */
    static final String KEY_DIR = "/opt/dockyard/run";
    static final String KEY_FILE = "session-key";
    static final String PLUGINS_FILE = "plugins";

    private final DockerClient docker;

    ContainerFiles(DockerClient docker) {
        this.docker = docker;
    }

    /** Copies the key (and plugins) file into the sandbox, where its executor reads it at boot. */
    void handKey(String container, String sessionKey, List<String> plugins, String user) {
        byte[] archive = keyArchive(sessionKey, plugins, user);
        try {
            docker.copyArchiveToContainerCmd(container)
                    .withTarInputStream(new ByteArrayInputStream(archive))
                    .withRemotePath(KEY_DIR)
                    .exec();
        } catch (NotFoundException e) {
            throw new BackendException("the image has no " + KEY_DIR + " for the session key: is it a Dockyard "
                    + "sandbox image?", e);
        } catch (DockerException e) {
            throw new BackendException("could not hand the session key to the container: "
                    + DockerErrors.describe(e), e);
        }
    }

    /**
     * The key file, readable only by the sandbox user (the executor reads it once and deletes it),
     * and the plugins to start, one name a line (no file when there are none).
     */
    private static byte[] keyArchive(String sessionKey, List<String> plugins, String user) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            add(tar, KEY_FILE, sessionKey.getBytes(StandardCharsets.UTF_8), 0100400, user);
            if (!plugins.isEmpty()) {
                add(tar, PLUGINS_FILE, String.join("\n", plugins).getBytes(StandardCharsets.UTF_8), 0100400, user);
            }
        } catch (IOException e) {
            throw new IllegalStateException("building an in-memory tar", e);
        }
        return out.toByteArray();
    }

    private static void add(TarArchiveOutputStream tar, String name, byte[] content, int mode, String user)
            throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setSize(content.length);
        entry.setMode(mode);
        numericUser(user, entry);
        tar.putArchiveEntry(entry);
        tar.write(content);
        tar.closeArchiveEntry();
    }

    private static void numericUser(String user, TarArchiveEntry entry) {
        String[] parts = user.split(":");
        try {
            long uid = Long.parseLong(parts[0]);
            long gid = parts.length > 1 ? Long.parseLong(parts[1]) : uid;
            entry.setUserId(uid);
            entry.setGroupId(gid);
        } catch (NumberFormatException e) {
            entry.setUserName(parts[0]);
        }
    }

    /**
     * Writes the environment file of an image's own process into the container ({@link ProcessLaunch});
     * {@code what} says what failed, should it.
     */
    void handEnvironment(String container, Map<String, String> environment, String user, String what) {
        byte[] archive = ProcessLaunch.environmentArchive(environment, user);
        try {
            docker.copyArchiveToContainerCmd(container).withTarInputStream(new ByteArrayInputStream(archive))
                    .withRemotePath("/").exec();
        } catch (DockerException e) {
            throw new BackendException(what + ": " + DockerErrors.describe(e), e);
        }
    }

    /** A tar of {@code path} in the sandbox. */
    InputStream archive(String sandboxName, String path) {
        try {
            return docker.copyArchiveFromContainerCmd(sandboxName, path).exec();
        } catch (NotFoundException e) {
            throw new BackendException("no " + path + " in sandbox '" + sandboxName + "' (or the sandbox is gone)", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not archive " + path + " of '" + sandboxName + "': "
                    + DockerErrors.describe(e), e);
        }
    }

    /** Unpacks {@code tar} into {@code directory} of the sandbox. */
    void restore(String sandboxName, String directory, InputStream tar) {
        try {
            docker.copyArchiveToContainerCmd(sandboxName).withTarInputStream(tar).withRemotePath(directory).exec();
        } catch (NotFoundException e) {
            throw new BackendException("sandbox '" + sandboxName + "' has no " + directory + " (or is gone)", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not unpack the archive into '" + sandboxName + "': "
                    + DockerErrors.describe(e), e);
        }
    }
}
