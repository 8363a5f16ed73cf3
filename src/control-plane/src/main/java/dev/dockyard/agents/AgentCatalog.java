package dev.dockyard.agents;

import dev.dockyard.security.SecurityPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The agents of MP Config: {@code dockyard.agents} lists their names; for each,
 * {@code dockyard.agent.<name>.llm-model}, {@code .llm-base-url} and {@code .file-access}
 * (workspace or anywhere), {@code .plugins} (the executor plugins its runtimes start, e.g. jupyter),
 * {@code .enable-auto-lint} (its runtimes' default for sandbox.enableAutoLint, false),
 * {@code .security.confirm} and {@code .security.block} (LOW, MEDIUM,
 * HIGH or NEVER) are optional. {@code dockyard.agent.default} is the one a request gets
 * when it names none.
 */
@ApplicationScoped
public class AgentCatalog {

    public Optional<AgentProfile> find(String name) {
        return Optional.ofNullable(all().get(name));
    }

    public String defaultAgent() {
        return config().getOptionalValue("dockyard.agent.default", String.class).orElse("CodeActAgent");
    }

    public List<String> names() {
        return List.copyOf(all().keySet());
    }

    /** Read again at most every few seconds: every action asks for its agent's policy. */
    private static final long REREAD_NANOS = TimeUnit.SECONDS.toNanos(5);
    private volatile Map<String, AgentProfile> cached;
    private volatile long readAt;

    private Map<String, AgentProfile> all() {
        Map<String, AgentProfile> agents = cached;
        if (agents == null || System.nanoTime() - readAt > REREAD_NANOS) {
            agents = read();
            cached = agents;
            readAt = System.nanoTime();
        }
        return agents;
    }

    private Map<String, AgentProfile> read() {
        Config config = config();
        Map<String, AgentProfile> agents = new LinkedHashMap<>();
        String names = config.getOptionalValue("dockyard.agents", String.class).orElse("CodeActAgent");
        for (String name : Arrays.stream(names.split(",")).map(String::strip).filter(n -> !n.isEmpty()).toList()) {
            String prefix = "dockyard.agent." + name + ".";
            LlmSettings defaults = new LlmSettings(
                    config.getOptionalValue(prefix + "llm-model", String.class).orElse(null),
                    config.getOptionalValue(prefix + "llm-base-url", String.class).orElse(null), null);
            String fileAccess = config.getOptionalValue(prefix + "file-access", String.class).orElse("workspace");
            List<String> plugins = Arrays.stream(config.getOptionalValue(prefix + "plugins", String.class)
                    .orElse("").split(",")).map(String::strip).filter(p -> !p.isEmpty()).toList();
            boolean autoLint = config.getOptionalValue(prefix + "enable-auto-lint", Boolean.class).orElse(false);
            agents.put(name, new AgentProfile(name, defaults, fileAccess, policy(config, prefix), plugins, autoLint));
        }
        return agents;
    }

    /** {@code <prefix>security.confirm|block}, else {@code dockyard.security.confirm|block} (HIGH / NEVER). */
    private static SecurityPolicy policy(Config config, String prefix) {
        String confirm = config.getOptionalValue(prefix + "security.confirm", String.class)
                .or(() -> config.getOptionalValue("dockyard.security.confirm", String.class)).orElse("HIGH");
        String block = config.getOptionalValue(prefix + "security.block", String.class)
                .or(() -> config.getOptionalValue("dockyard.security.block", String.class)).orElse("NEVER");
        return new SecurityPolicy(SecurityPolicy.threshold(confirm, prefix + "security.confirm"),
                SecurityPolicy.threshold(block, prefix + "security.block"));
    }

    private static Config config() {
        return ConfigProvider.getConfig();
    }
}
