package dev.dockyard.fakes;

import dev.dockyard.config.DockyardConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The settings the lifecycle and reconciliation read, without MicroProfile Config. */
public class TestConfig extends DockyardConfig {

    public String instance = "test";
    /** Dockyard's sandbox image and its browser variant, as a default install names them. */
    public String sandboxImage = "dockyard/sandbox:latest";
    public String sandboxBrowserImage = "dockyard/sandbox-browser:latest";
    public Duration reconcilerGrace = Duration.ofSeconds(20);
    public Duration disconnectedGrace = Duration.ofSeconds(300);
    /** dockyard.provisioning.max-concurrent-boots, and by node dockyard.node.<name>.max-concurrent-boots. */
    public int maxConcurrentBoots = 2 * Runtime.getRuntime().availableProcessors();
    public final Map<String, Integer> nodeMaxConcurrentBoots = new HashMap<>();
    public Duration migrationDrain = Duration.ofMillis(200);
    public Duration hibernateAfter = Duration.ZERO;
    public Duration poolRefillDelay = Duration.ZERO;
    /** dockyard.node.<name>.disconnected-grace by node. */
    public Map<String, Duration> nodeDisconnectedGraces = new HashMap<>();
    /** dockyard.node.<name>.placement by node. */
    public Map<String, String> nodePlacements = new HashMap<>();
    /** dockyard.node.<name>.allowed-users by node. */
    public Map<String, Set<String>> nodeAllowedUsers = new HashMap<>();

    /** dockyard.programs.session-key-variables as its default says. */
    @Override
    public List<String> programSessionKeyVariables() {
        return List.of("SESSION_API_KEY", "OH_SESSION_API_KEYS_0");
    }

    @Override
    public String sandboxImage() {
        return sandboxImage;
    }

    @Override
    public String sandboxBrowserImage() {
        return sandboxBrowserImage;
    }

    @Override
    public String instance() {
        return instance;
    }

    @Override
    public Duration reconcilerGrace() {
        return reconcilerGrace;
    }

    @Override
    public Duration disconnectedGrace() {
        return disconnectedGrace;
    }

    @Override
    public int maxConcurrentBoots(String node) {
        return nodeMaxConcurrentBoots.getOrDefault(node, maxConcurrentBoots);
    }

    @Override
    public Duration disconnectedGrace(String node) {
        return nodeDisconnectedGraces.getOrDefault(node, disconnectedGrace);
    }

    @Override
    public Duration migrationDrainTimeout() {
        return migrationDrain;
    }

    @Override
    public Duration hibernateAfter() {
        return hibernateAfter;
    }

    @Override
    public Duration poolRefillDelay() {
        return poolRefillDelay;
    }

    @Override
    public String sandboxUser() {
        return "1000:1000";
    }

    @Override
    public int executorPort() {
        return 8000;
    }

    @Override
    public Optional<String> nodePlacement(String node) {
        return Optional.ofNullable(nodePlacements.get(node));
    }

    @Override
    public Optional<Set<String>> nodeAllowedUsers(String node) {
        return Optional.ofNullable(nodeAllowedUsers.get(node));
    }
}
