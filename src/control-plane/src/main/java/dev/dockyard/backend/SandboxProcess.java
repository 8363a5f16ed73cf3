package dev.dockyard.backend;

import java.util.List;
import java.util.Map;

/**
 * The process a sandbox of any image runs in place of Dockyard's executor. Its environment
 * (the session key among it) goes in through the sandbox's file system, read by a small start
 * script before the command replaces it, so that no value shows up in {@code docker inspect}.
 *
 * @param command     the argument vector; empty keeps the image's entrypoint and command
 * @param workingDir  null keeps the image's
 * @param environment what the process gets on top of the image's environment
 * @param fsGroup     an extra group for the process, or null
 */
public record SandboxProcess(List<String> command, String workingDir, Map<String, String> environment, Long fsGroup) {

    public SandboxProcess {
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
    }

    @Override
    public String toString() {
        return "SandboxProcess[command=" + command + ", workingDir=" + workingDir + ", environment="
                + environment.keySet() + "]";
    }
}
