package dev.dockyard.runtime.executor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What is pushed into a ready sandbox: variables for its shell (secrets among them), its file
 * policy, and the token git alone gets (the repository's credential, or null) for the repository's
 * server only ({@code gitScope}: scheme://host[:port]). Never printed:
 * toString names the variables, not their values.
 */
public record SandboxConfiguration(Map<String, String> env, String fileAccess, String gitToken, String gitScope) {

    public SandboxConfiguration {
        env = Map.copyOf(env);
    }

    /** Every value pushed into the sandbox that must never be repeated in a message: variables and the git token. */
    public List<String> secretValues() {
        List<String> values = new ArrayList<>(env.values());
        if (gitToken != null) {
            values.add(gitToken);
        }
        return values;
    }

    @Override
    public String toString() {
        return "SandboxConfiguration[env=" + env.keySet() + ", fileAccess=" + fileAccess + ", gitToken="
                + (gitToken == null ? "none" : "set") + "]";
    }
}
