package dev.dockyard.agents;

/**
 * An agent as configured: its name, its default LLM settings and its security policy
 * ({@code fileAccess}: "workspace" confines file actions to the workspace, "anywhere" does not;
 * {@code security}: which rated actions need confirmation or are refused).
 */
public record AgentProfile(String name, LlmSettings llmDefaults, String fileAccess,
                           dev.dockyard.security.SecurityPolicy security, java.util.List<String> plugins) {

    public AgentProfile {
        plugins = plugins == null ? java.util.List.of() : java.util.List.copyOf(plugins);
    }
}
