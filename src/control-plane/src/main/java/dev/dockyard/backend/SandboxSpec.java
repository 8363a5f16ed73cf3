package dev.dockyard.backend;

import java.util.List;
import java.util.Map;

/**
 * What a backend needs to create a sandbox. {@code bootCpus} is the CPU limit while it boots
 * (0: no limit), {@code cpus} the one it settles to once ready. The session key is handed to the executor through the
 * sandbox's file system, never as an environment variable or label, so that it does not show up in
 * {@code docker inspect}. There is no environment here on purpose: the sandbox's configuration,
 * the request's own variables included, goes in through the executor once it is ready.
 * {@code plugins}: the executor plugins to start (PROTOCOL.md's /ready waits for them), handed to
 * the sandbox beside the key.
 */
public record SandboxSpec(String runtimeId, String conversationId, String controlPlane, String name, String image, double cpus,
                          double bootCpus, int memoryMb, long pidsLimit, String user, int executorPort,
                          String sessionKey, List<String> plugins) {

    public SandboxSpec {
        plugins = List.copyOf(plugins);
    }

    public Map<String, String> labels() {
        return Labels.of(runtimeId, conversationId, controlPlane);
    }

    @Override
    public String toString() {
        // never print the key
        return "SandboxSpec[runtimeId=" + runtimeId + ", name=" + name + ", image=" + image + ", cpus=" + cpus
                + ", memoryMb=" + memoryMb + "]";
    }
}
