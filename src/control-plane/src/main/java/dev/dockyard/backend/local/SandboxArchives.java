package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.TarStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A local sandbox's workspace as a tar, as a migration or a snapshot moves it between nodes:
 * taken out of it and unpacked into it by {@code tar} running as the sandbox user, never as
 * root, on paths of the executor's view ({@code /workspace...}) that {@link SandboxFiles#hostPath}
 * confines to the sandbox's workspace.
 */
final class SandboxArchives {

    private final LocalNodeConfig config;
    private final SandboxUser user;
    private final SandboxFiles files;

    SandboxArchives(LocalNodeConfig config, SandboxUser user, SandboxFiles files) {
        this.config = config;
        this.user = user;
        this.files = files;
    }

    /**
     * Archives as the sandbox user, never as root: the sandbox owns its directory and may have put
     * a link anywhere in it, which then leads tar only where that user could read anyway. A link
     * on the way to the archived directory is refused all the same (a control plane that is not
     * root runs its sandboxes as itself, and its own files are then that user's too). The
     * stream ends in an IOException when tar fails ({@link TarStream}).
     */
    InputStream archive(String name, String path) {
        // "dir/." is the directory's contents (entries "./…"), as the engine's archive of it gives them
        boolean contents = path.endsWith("/.");
        Path target = files.hostPath(name, contents ? path.substring(0, path.length() - 2) : path);
        Path directory = contents ? target : target.getParent();
        refuseLinks(name, directory, path);
        List<String> command = new ArrayList<>(List.of("tar", "-C", directory.toString(), "-cf", "-"));
        if (config.archiveOwner() != null && config.archiveOwner().matches("[0-9]+")) {
            // the files are the local sandbox user's; a Docker sandbox's user must own them once moved there
            command.addAll(List.of("--numeric-owner", "--owner=" + config.archiveOwner(),
                    "--group=" + config.archiveOwner()));
        }
        command.add("--");
        command.add(contents ? "." : target.getFileName().toString());
        try {
            return TarStream.start(user.command(command));
        } catch (IOException e) {
            throw new BackendException("could not archive " + path + " of '" + name + "': " + e.getMessage(), e);
        }
    }

    /** Refuses {@code directory} unless each name from the sandbox's directory down to it is a directory, not a link. */
    private void refuseLinks(String name, Path directory, String path) {
        Path dir = files.sandboxDir(name);
        for (Path part : dir.relativize(directory)) {
            dir = dir.resolve(part);
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new BackendException("cannot archive " + path + " of local sandbox '" + name + "': "
                        + files.sandboxDir(name).relativize(dir) + " is not a directory (a link is never followed)");
            }
        }
    }

    /**
     * Unpacks as the sandbox user, owners not kept: every file of a local sandbox is its user's, and
     * an archive's links can lead nowhere that user could not write anyway.
     */
    void restore(String name, String directory, InputStream tar) {
        Path target = directory.equals("/") ? files.sandboxDir(name) : files.hostPath(name, directory);
        List<String> command = List.of("tar", "-C", target.toString(), "-xf", "-", "--no-same-owner",
                "--no-overwrite-dir");
        try {
            Process untar = user.command(command).redirectErrorStream(true).start();
            try (OutputStream in = untar.getOutputStream()) {
                tar.transferTo(in);
            }
            String output = new String(untar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!untar.waitFor(10, TimeUnit.MINUTES) || untar.exitValue() != 0) {
                throw new BackendException("unpacking into " + directory + " of '" + name + "' failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new BackendException("could not unpack into " + directory + " of '" + name + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted", e);
        }
    }
}
