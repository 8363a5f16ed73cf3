package dev.dockyard.backend.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Who a local node's sandboxes run as. A control plane running as root runs them as an
 * unprivileged user of their own ({@code dockyard-sandbox} by default), created here when missing
 * (a system user, no home, no login shell); one that is not root cannot switch users, so its
 * sandboxes run as itself: docs/backends.md ("Local backend") says what that means. A command
 * runs as it through {@code setpriv}, with none of the control plane's environment ({@link #command}).
 *
 * @param switched whether sandboxes run as another user than the control plane
 */
public record SandboxUser(String name, int uid, int gid, boolean switched) {

    private static final Logger LOG = Logger.getLogger(SandboxUser.class.getName());
    /** The PATH of every process a local node starts for its sandboxes: the host's, never the server's. */
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /** The user for {@code name}: made when the control plane is root and it does not exist. */
    public static SandboxUser ensure(String name) {
        int self = Integer.parseInt(run(List.of("id", "-u")).strip());
        if (self != 0) {
            LOG.warning("The control plane does not run as root: local sandboxes run as its own user (uid " + self
                    + "), with no separation from its files");
            return new SandboxUser(run(List.of("id", "-un")).strip(), self, Integer.parseInt(run(List.of("id", "-g"))
                    .strip()), false);
        }
        if (!name.matches("[a-z_][a-z0-9_-]{0,31}")) {
            throw new IllegalStateException("'" + name + "' is not a user name");
        }
        if (exec(List.of("id", "-u", name)) != 0) {
            int made = exec(List.of("useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                    "/nonexistent", "--shell", "/usr/sbin/nologin", name));
            // another control plane may have made it meanwhile
            if (made != 0 && exec(List.of("id", "-u", name)) != 0) {
                throw new IllegalStateException("could not create the sandbox user '" + name + "' (useradd exited "
                        + made + ")");
            }
            LOG.info("Created the local sandboxes' user '" + name + "'");
        }
        int uid = Integer.parseInt(run(List.of("id", "-u", name)).strip());
        int gid = Integer.parseInt(run(List.of("id", "-g", name)).strip());
        if (uid == 0) {
            throw new IllegalStateException("the sandbox user '" + name + "' is root: local sandboxes never run as root");
        }
        return new SandboxUser(name, uid, gid, true);
    }

    private static int exec(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** setpriv's first arguments: the rest of its command line runs as this user, with its own group alone. */
    List<String> setpriv() {
        return List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups");
    }

    /**
     * {@code command} as this user (as this process's user when it cannot switch), with nothing of
     * the control plane's environment: a process of that user is the sandbox's to read, its
     * environment too.
     */
    ProcessBuilder command(List<String> command) {
        List<String> full = new ArrayList<>();
        if (switched) {
            full.addAll(setpriv());
        }
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full);
        builder.environment().clear();
        builder.environment().put("PATH", PATH);
        builder.environment().put("LANG", "C.UTF-8");
        return builder;
    }
}
