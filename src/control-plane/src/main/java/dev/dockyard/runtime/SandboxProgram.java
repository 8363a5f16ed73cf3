package dev.dockyard.runtime;

import java.util.List;
import java.util.Map;

/**
 * What a runtime runs when it is not Dockyard's executor: any image's own server (OpenHands'
 * agent server, for one), started with this command, in this directory, as this user, with this
 * environment. Such a runtime is ready when its main port answers HTTP; Dockyard does not talk to
 * it beyond that, it only carries its clients' traffic (see {@code dev.dockyard.proxy}).
 *
 * @param command     the argument vector; empty runs the image's own entrypoint and command
 * @param workingDir  where the command starts, or null for the image's
 * @param environment the variables the client asked for (they may hold secrets: sealed at rest,
 *                    handed to the sandbox through its file system, never in {@code docker inspect})
 * @param user        {@code uid[:gid]}, or null for the image's user
 * @param fsGroup     an extra group the process belongs to, or null
 * @param mainPort    the port of the server clients talk to (readiness is probed there)
 * @param publicBase  where clients reach the control plane's proxy ({@code {publicBase}/{runtime id}}
 *                    is the program's URL, told to it as RUNTIME_URL), or null
 */
public record SandboxProgram(List<String> command, String workingDir, Map<String, String> environment, String user,
                             Long fsGroup, int mainPort, String publicBase) {

    public SandboxProgram {
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
    }

    @Override
    public String toString() {
        // the environment may hold secrets: names only
        return "SandboxProgram[command=" + command + ", workingDir=" + workingDir + ", user=" + user
                + ", environment=" + environment.keySet() + ", mainPort=" + mainPort + "]";
    }
}
