package dev.dockyard.backend.local;

import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.ExecutorServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How a local sandbox's executor is started: the command line that puts it in the sandbox's
 * cgroups, a session of its own and (as root, where the host allows) mount and pid namespaces of
 * its own, as the sandbox user; and the environment it gets, which holds nothing of the control
 * plane's own. What it answers is the identity (pid and start time) of the process it started,
 * which the record keeps so that a pid reused by another process is never signalled.
 */
final class ExecutorLauncher {

    /** sh -c script: the umask 022, join the n cgroups named first, then exec the rest of the arguments. */
    static final String JOIN_CGROUPS = "umask 022; n=$1; shift; while [ \"$n\" -gt 0 ]; do echo $$ > \"$1/cgroup.procs\" || exit 70; "
            + "shift; n=$((n - 1)); done; exec \"$@\"";
    /** sh -c script: bind the directory named first onto /tmp, then exec the rest of the arguments. */
    static final String PRIVATE_TMP = "mount --bind \"$0\" /tmp || exit 71; exec \"$@\"";
    /**
     * bash -c script, the first process of a sandbox's pid namespace: runs the executor, hands it
     * SIGTERM, and reaps every orphan the namespace hands it meanwhile (bash reaps any child that
     * exits, known or not) until the executor exits.
     */
    static final String INIT = "\"$@\" & child=$!; trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT HUP; "
            + "status=0; while kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; status=$?; done; exit $status";

    private final LocalNodeConfig config;
    private final SandboxUser user;
    private final ProcessTable processes;
    private final CgroupLimits cgroups;
    private final SandboxFiles files;
    private final boolean privateTmp;

    /** @param privateTmp whether sandboxes get a /tmp of their own ({@link #canUnshareMounts}) */
    ExecutorLauncher(LocalNodeConfig config, SandboxUser user, ProcessTable processes, CgroupLimits cgroups,
                     SandboxFiles files, boolean privateTmp) {
        this.config = config;
        this.user = user;
        this.processes = processes;
        this.cgroups = cgroups;
        this.files = files;
        this.privateTmp = privateTmp;
    }

    /** Whether this process may make a mount namespace of its own (root, and a host that allows it). */
    static boolean canUnshareMounts() {
        try {
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The bundle's launcher, which every sandbox's executor is started with. */
    Path startScript() {
        return config.bundle().resolve("bin").resolve("start-executor");
    }

    /** A port nobody listens on now (the kernel's pick); the executor binds it a moment later. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new BackendException("no free port on 127.0.0.1: " + e.getMessage(), e);
        }
    }

    /** Starts the executor of the sandbox {@code record} describes on {@code port}; answers its process. */
    ProcessIdentity launch(String name, int port, SandboxRecord record) {
        int memoryMb = record.memoryMb();
        Path dir = files.sandboxDir(name);
        List<String> command = new ArrayList<>();
        // joins its cgroups before anything else runs, so every process it starts is inside; the
        // umask a container has, not the server's (Liberty's 027)
        List<Path> cgroup = cgroups.paths(name);
        command.addAll(List.of("/bin/sh", "-c", JOIN_CGROUPS, "join-cgroups", Integer.toString(cgroup.size())));
        cgroup.forEach(c -> command.add(c.toString()));
        command.add("setsid");
        if (privateTmp) {
            // a mount namespace of its own whose /tmp is the sandbox's tmp: sandboxes share no /tmp
            // with each other or the host (root only may make one; mounts do not leave it)
            // and of pids, whose first process reaps orphans as a container's init does
            command.addAll(List.of("unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
                    "--propagation", "private", "/bin/sh", "-c", PRIVATE_TMP, dir.resolve("tmp").toString()));
            command.addAll(user.setpriv());
            command.addAll(List.of("--no-new-privs", "/bin/bash", "-c", INIT, "dockyard-init"));
        } else if (user.switched()) {
            command.addAll(user.setpriv());
            command.add("--no-new-privs");
        }
        command.addAll(List.of("/bin/bash", startScript().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.resolve(SandboxFiles.WORKSPACE).toFile());
        Map<String, String> env = builder.environment();
        // nothing of the control plane's own environment (its keys, database settings) goes in
        env.clear();
        env.put("PATH", SandboxUser.PATH);
        env.put("HOME", dir.resolve("home").toString());
        env.put("USER", user.name());
        env.put("LOGNAME", user.name());
        env.put("SHELL", "/bin/bash");
        env.put("LANG", "C.UTF-8");
        env.put("TMPDIR", dir.resolve("tmp").toString());
        env.put("DOCKYARD_BUNDLE", config.bundle().toString());
        env.put("DOCKYARD_WORKSPACE", dir.resolve(SandboxFiles.WORKSPACE).toString());
        env.put("DOCKYARD_CONFIG_DIR", dir.resolve(SandboxFiles.KEY_DIR).toString());
        env.put("DOCKYARD_LIBERTY_OUTPUT", dir.resolve("liberty").toString());
        env.put("SESSION_API_KEY_FILE", dir.resolve(SandboxFiles.KEY_DIR).resolve(SandboxFiles.KEY_FILE).toString());
        env.put("EXECUTOR_PORT", Integer.toString(port));
        env.put("EXECUTOR_HOST", "127.0.0.1");
        env.put(LocalBackend.SANDBOX_VARIABLE, name);
        // how the bundle's start script boots the executor, the same at every start (a revive too);
        // a record older than the choice was a sandbox of Liberty, then the only server
        env.put(ExecutorServer.VARIABLE, (record.executorServer() == null ? ExecutorServer.LIBERTY
                : record.executorServer()).apiName());
        if (memoryMb > 0) {
            // the JVM sizes its heap as in a container of the sandbox's memory (the cgroup's limit
            // is not what it reads on a host)
            env.put("DOCKYARD_JVM_OPTIONS", "-XX:MaxRAM=" + memoryMb + "m");
        }
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(files.logFile(name).toFile()));
        try {
            Process process = builder.start();
            // the launch chain execs all the way to the JVM: this pid is the executor's, and its session's
            Optional<ProcessIdentity> identity = Optional.empty();
            for (int i = 0; i < 50 && identity.isEmpty() && process.isAlive(); i++) {
                identity = processes.identify(process.pid());
                if (identity.isEmpty()) {
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
            return identity.orElseThrow(() -> new BackendException("the executor of '" + name + "' exited at once: "
                    + files.logTail(name)));
        } catch (IOException e) {
            throw new BackendException("could not start the executor of '" + name + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while starting '" + name + "'", e);
        }
    }
}
