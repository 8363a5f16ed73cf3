package dev.dockyard.backend;

import java.util.Map;

/**
 * What a backend needs to create a sandbox. The session key is handed to the executor through the
 * sandbox's file system, never as an environment variable or label, so that it does not show up in
 * {@code docker inspect}.
 */
public record SandboxSpec(String runtimeId, String conversationId, String name, String image, double cpus,
                          int memoryMb, long pidsLimit, String user, int executorPort,
                          Map<String, String> environment, String sessionKey) {

    public SandboxSpec {
        environment = Map.copyOf(environment);
    }

    public Map<String, String> labels() {
        return Labels.of(runtimeId, conversationId);
    }

    @Override
    public String toString() {
        // never print the key
        return "SandboxSpec[runtimeId=" + runtimeId + ", name=" + name + ", image=" + image + ", cpus=" + cpus
                + ", memoryMb=" + memoryMb + "]";
    }
}
