package dev.dockyard.backend.docker;

import com.github.dockerjava.api.command.CreateContainerCmd;
import dev.dockyard.backend.SandboxProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * How a sandbox of any image starts its own process with an environment nobody can read from
 * outside: the variables are written to {@code /.dockyard/environment} (owned by the sandbox
 * user, mode 400) before the container starts, and a one-line {@code /bin/sh} entrypoint exports
 * them and then {@code exec}s the command, which thus runs as the container's main process with
 * the image's environment plus these. {@code docker inspect} shows the script and the command,
 * never a value. The file stays, so a restarted container starts the same way (it holds nothing
 * the process itself does not hold). Images without {@code /bin/sh} cannot run this way.
 */
final class ProcessLaunch {

    static final String DIRECTORY = ".dockyard";
    static final String ENVIRONMENT_FILE = "/" + DIRECTORY + "/environment";
    /** Fails closed: without its environment (its keys among it) the program does not start. */
    static final String SCRIPT = ". " + ENVIRONMENT_FILE + " && exec \"$@\"";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private ProcessLaunch() {
    }

    static void configure(CreateContainerCmd create, SandboxProcess process, List<String> command) {
        create.withEntrypoint("/bin/sh", "-c", SCRIPT, "dockyard-start").withCmd(command);
        if (process.workingDir() != null && !process.workingDir().isBlank()) {
            create.withWorkingDir(process.workingDir());
        }
    }

    /** The environment file as a shell script of {@code export NAME='value'} lines. */
    static String environmentScript(Map<String, String> environment) {
        StringBuilder script = new StringBuilder();
        environment.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            if (!NAME.matcher(e.getKey()).matches()) {
                throw new IllegalArgumentException("'" + e.getKey() + "' is not an environment variable name");
            }
            script.append("export ").append(e.getKey()).append("='")
                    .append(e.getValue().replace("'", "'\\''")).append("'\n");
        });
        return script.toString();
    }

    /**
     * A tar for the container's root: the directory and the file, owned by {@code user}
     * ({@code uid[:gid]}); for the image's own user (null), which is not known here, readable by all.
     */
    static byte[] environmentArchive(Map<String, String> environment, String user) {
        byte[] content = environmentScript(environment).getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            TarArchiveEntry directory = new TarArchiveEntry(DIRECTORY + "/");
            directory.setMode(user == null ? 040755 : 040700);
            owner(directory, user);
            tar.putArchiveEntry(directory);
            tar.closeArchiveEntry();
            TarArchiveEntry file = new TarArchiveEntry(DIRECTORY + "/environment");
            file.setSize(content.length);
            file.setMode(user == null ? 0100444 : 0100400);
            owner(file, user);
            tar.putArchiveEntry(file);
            tar.write(content);
            tar.closeArchiveEntry();
        } catch (IOException e) {
            throw new IllegalStateException("building an in-memory tar", e);
        }
        return out.toByteArray();
    }

    private static void owner(TarArchiveEntry entry, String user) {
        if (user == null) {
            return;
        }
        String[] parts = user.split(":");
        long uid = Long.parseLong(parts[0]);
        entry.setUserId(uid);
        entry.setGroupId(parts.length > 1 ? Long.parseLong(parts[1]) : uid);
    }
}
