package dev.dockyard.api;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.images.BuildScriptPolicy;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.RuntimeDockerfile;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.WorkspaceRequest;
import dev.dockyard.tenancy.Role;
import dev.dockyard.runtime.RepositorySpec;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and checks a provision body (API.md), applying the MP Config defaults. Every problem is a
 * 400 that names the field; nothing is half-applied. Each object of the body has one constant set
 * of the members it takes ({@link #FIELDS}, {@link #SANDBOX_FIELDS}, ...): anything else is refused
 * by name, so a new field is one more name there.
 */
final class ProvisionRequestReader {

    /** The provision body's own members. */
    static final Set<String> FIELDS = Set.of("conversationId", "agent", "llm", "sandbox", "replace", "repository",
            "workspace", "fromSnapshot", "node");
    /** {@code sandbox}'s members. */
    static final Set<String> SANDBOX_FIELDS = Set.of("image", "cpus", "memoryMb", "timeoutSeconds", "env", "plugins",
            "extraDeps", "keepAlive", "idleTimeoutSeconds", "ttlSeconds", "diskMb", "enableAutoLint", "executorServer",
            // confinement: the egress policy (EgressRequestReader), the isolation (IsolationRequestReader)
            "network", "egress", "runtimeClass", "gpus", "networks", "readOnlyRoot");
    /** {@code llm}'s members. */
    static final Set<String> LLM_FIELDS = Set.of("model", "baseUrl", "apiKey");
    /** {@code repository}'s members. */
    static final Set<String> REPOSITORY_FIELDS = Set.of("url", "branch", "newBranch", "credential");
    /** {@code extraDeps}' members (here and in an image build). */
    static final Set<String> EXTRA_DEPS_FIELDS = Set.of("apt", "script");

    private static final Pattern IMAGE = Pattern.compile(
            "^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$");

    private ProvisionRequestReader() {
    }

    static ProvisioningRequest read(JsonObject body, String userId, Role role,
                                    DockyardConfig config, AgentCatalog agents) {
        if (body == null) {
            throw invalid("A JSON body is required, at least {\"conversationId\": \"...\"}");
        }
        JsonFields.requireOnly(body, FIELDS, "");
        String conversationId = string(body, "conversationId", null);
        if (conversationId == null || conversationId.isBlank()) {
            throw invalid("conversationId is required");
        }
        SafeIds.require(conversationId, "conversationId");
        JsonObject sandbox = object(body, "sandbox");
        JsonFields.requireOnly(sandbox, SANDBOX_FIELDS, "sandbox");
        String image = string(sandbox, "image", config.sandboxImage());
        requireImage(image, "sandbox.image");
        double cpus = number(sandbox, "cpus", config.sandboxCpus());
        if (!(cpus >= 0.1 && cpus <= config.maxCpus())) {
            throw invalid("sandbox.cpus must be between 0.1 and " + config.maxCpus());
        }
        int memoryMb = integer(sandbox, "memoryMb", config.sandboxMemoryMb());
        if (memoryMb < 128 || memoryMb > config.maxMemoryMb()) {
            throw invalid("sandbox.memoryMb must be between 128 and " + config.maxMemoryMb());
        }
        int timeout = integer(sandbox, "timeoutSeconds", (int) config.sandboxTimeout().toSeconds());
        if (timeout < 1 || timeout > 3600) {
            throw invalid("sandbox.timeoutSeconds must be between 1 and 3600");
        }
        Map<String, String> env = new LinkedHashMap<>(JsonFields.strings(sandbox, "env", "sandbox.env",
                JsonFields.VARIABLE_NAME, JsonFields.MAX_ENVIRONMENT_BYTES));
        List<String> plugins = plugins(sandbox.get("plugins"));
        String agentName = string(body, "agent", agents.defaultAgent());
        AgentProfile agent = agents.find(agentName).orElseThrow(() -> invalid("agent '" + agentName
                + "' is not known; known agents: " + agents.names()));
        if (bool(sandbox, "enableAutoLint", agent.enableAutoLint())) {
            // told to the sandbox as OpenHands tells its own (runtime/base.py _default_env_vars)
            env.put(AUTO_LINT_ENV, "true");
        }
        JsonObject llmJson = object(body, "llm");
        JsonFields.requireOnly(llmJson, LLM_FIELDS, "llm");
        LlmSettings llm = new LlmSettings(string(llmJson, "model", null),
                string(llmJson, "baseUrl", null), string(llmJson, "apiKey", null)).over(agent.llmDefaults());
        if (llm.apiKey() != null && (llm.apiKey().length() > 1000 || llm.apiKey().chars().anyMatch(Character::isISOControl))) {
            // never echo the value: it is a secret
            throw invalid("llm.apiKey must be at most 1000 printable characters");
        }
        JsonValue replaceValue = body.get("replace");
        boolean replace = false;
        if (replaceValue != null && replaceValue.getValueType() != JsonValue.ValueType.NULL) {
            if (replaceValue.getValueType() != JsonValue.ValueType.TRUE
                    && replaceValue.getValueType() != JsonValue.ValueType.FALSE) {
                throw invalid("replace must be a boolean");
            }
            replace = replaceValue.getValueType() == JsonValue.ValueType.TRUE;
        }
        ExtraDependencies extra = extraDependencies(sandbox, "sandbox.extraDeps");
        BuildScriptPolicy.requireAllowed(role == Role.ADMIN, extra,
                reason -> Problem.of(Problem.Kind.FORBIDDEN, "sandbox." + reason).toException());
        Set<String> allPlugins = new LinkedHashSet<>(agent.plugins());
        allPlugins.addAll(plugins);
        if (allPlugins.contains("browser") && string(sandbox, "image", null) == null) {
            // the browser needs Chromium: the image variant that has it, unless the request chose an image
            image = config.sandboxBrowserImage();
        }
        EgressPolicy egress = EgressRequestReader.read(sandbox, config, EgressRequestReader.SYSTEM);
        SandboxIsolation isolation = IsolationRequestReader.read(sandbox, config.sandboxAllowedNetworks());
        if (egress.mode() != EgressPolicy.Mode.OPEN && !isolation.networks().isEmpty()) {
            // the policy's rules hold on the sandbox's own network only: another network would be a way around them
            throw invalid("sandbox.networks cannot be combined with sandbox.network '" + egress.mode().apiName()
                    + "': an extra network would be reachable past the egress policy");
        }
        return new ProvisioningRequest(userId, role, conversationId, agent, llm, image, cpus, memoryMb, timeout, env,
                extra, List.copyOf(allPlugins), repository(body), replace, null).with(lifecycle(sandbox, config))
                .withWorkspace(workspace(body, sandbox, config), null)
                .withEgress(egress)
                .withIsolation(isolation)
                .withExecutorServer(executorServer(sandbox));
    }

    /**
     * {@code sandbox.executorServer} (here and in a pool's body): how the sandbox starts its
     * executor, one of {@link ExecutorServer#NAMES}; absent or null: as its node's sandboxes do.
     */
    static ExecutorServer executorServer(JsonObject sandbox) {
        String name = JsonFields.string(sandbox, "executorServer", null, "sandbox.executorServer");
        if (name == null) {
            return null;
        }
        return ExecutorServer.named(name).orElseThrow(() -> invalid("sandbox.executorServer '" + name
                + "' is not one of " + ExecutorServer.NAMES));
    }

    /**
     * The variable OpenHands sets in a sandbox for {@code sandbox.enable_auto_lint}; the executor's
     * editor then appends openhands-aci's lint of every Python change it makes.
     */
    static final String AUTO_LINT_ENV = "ENABLE_AUTO_LINT";

    /** A boolean member of {@code sandbox} (absent or null: {@code fallback}), else a 400 naming it. */
    private static boolean bool(JsonObject sandbox, String key, boolean fallback) {
        JsonValue value = sandbox.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (value.getValueType() != JsonValue.ValueType.TRUE && value.getValueType() != JsonValue.ValueType.FALSE) {
            throw invalid("sandbox." + key + " must be a boolean");
        }
        return value.getValueType() == JsonValue.ValueType.TRUE;
    }

    /** Longest idle timeout or TTL a request may name: a year. */
    static final int MAX_LIFECYCLE_SECONDS = 365 * 24 * 3600;

    /** {@code sandbox.keepAlive}, {@code idleTimeoutSeconds} and {@code ttlSeconds} (0: never), defaults from MP Config. */
    private static ProvisioningRequest.Lifecycle lifecycle(JsonObject sandbox, DockyardConfig config) {
        JsonValue keepAlive = sandbox.get("keepAlive");
        boolean keep = false;
        if (keepAlive != null && keepAlive.getValueType() != JsonValue.ValueType.NULL) {
            if (keepAlive.getValueType() != JsonValue.ValueType.TRUE
                    && keepAlive.getValueType() != JsonValue.ValueType.FALSE) {
                throw invalid("sandbox.keepAlive must be a boolean");
            }
            keep = keepAlive.getValueType() == JsonValue.ValueType.TRUE;
        }
        int idle = integer(sandbox, "idleTimeoutSeconds", config.idleTimeoutSeconds());
        if (idle < 0 || idle > MAX_LIFECYCLE_SECONDS) {
            throw invalid("sandbox.idleTimeoutSeconds must be between 0 (never) and " + MAX_LIFECYCLE_SECONDS);
        }
        int ttl = integer(sandbox, "ttlSeconds", config.ttlSeconds());
        if (ttl < 0 || ttl > MAX_LIFECYCLE_SECONDS) {
            throw invalid("sandbox.ttlSeconds must be between 0 (none) and " + MAX_LIFECYCLE_SECONDS);
        }
        return new ProvisioningRequest.Lifecycle(keep, idle, ttl);
    }

    /**
     * {@code sandbox.diskMb}, and a kept {@code workspace} or a snapshot ({@code fromSnapshot}) by
     * id, or the {@code node} to run on (placement chooses when none is named).
     */
    static WorkspaceRequest workspace(JsonObject body, JsonObject sandbox, DockyardConfig config) {
        int diskMb = integer(sandbox, "diskMb", 0);
        if (diskMb != 0 && (diskMb < MIN_DISK_MB || diskMb > config.maxDiskMb())) {
            throw invalid("sandbox.diskMb must be between " + MIN_DISK_MB + " and " + config.maxDiskMb());
        }
        String kept = string(body, "workspace", null);
        String snapshot = string(body, "fromSnapshot", null);
        if (kept != null && snapshot != null) {
            throw invalid("workspace and fromSnapshot cannot both be given: a runtime has one workspace");
        }
        if (kept != null) {
            SafeIds.require(kept, "workspace");
        }
        if (snapshot != null) {
            SafeIds.require(snapshot, "fromSnapshot");
        }
        if (diskMb != 0 && (kept != null || snapshot != null)) {
            throw invalid("sandbox.diskMb applies to a new workspace only: a kept workspace or a snapshot keeps its size");
        }
        String node = string(body, "node", null);
        if (node != null && !node.matches("[a-z0-9][a-z0-9-]{0,62}")) {
            throw invalid("node must be the name of a backend node (lower-case letters, digits and dashes)");
        }
        if (node != null && (kept != null || snapshot != null)) {
            throw invalid("node cannot be given with workspace or fromSnapshot: the runtime runs on the node that "
                    + "holds them");
        }
        return new WorkspaceRequest(diskMb, kept, snapshot, node, null);
    }

    /** The smallest workspace disk: ext4's own structures take a few MB of it. */
    static final int MIN_DISK_MB = 64;

    private static RepositorySpec repository(JsonObject body) {
        JsonValue value = body.get("repository");
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        JsonObject repo = object(body, "repository");
        JsonFields.requireOnly(repo, REPOSITORY_FIELDS, "repository");
        try {
            return new RepositorySpec(string(repo, "url", null), string(repo, "branch", null),
                    string(repo, "newBranch", null), string(repo, "credential", null));
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /** Plugins a sandbox can start (the executor's); asked for by the request and the agent. */
    static final List<String> AVAILABLE_PLUGINS = List.of("jupyter", "browser");

    private static List<String> plugins(JsonValue value) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (value.getValueType() != JsonValue.ValueType.ARRAY) {
            throw invalid("sandbox.plugins must be an array of plugin names");
        }
        List<String> names = new ArrayList<>();
        for (JsonValue v : value.asJsonArray()) {
            if (!(v instanceof JsonString s)) {
                throw invalid("sandbox.plugins must be an array of plugin names");
            }
            if (!AVAILABLE_PLUGINS.contains(s.getString())) {
                throw invalid("sandbox.plugins: '" + s.getString() + "' is not available; available plugins: "
                        + AVAILABLE_PLUGINS);
            }
            names.add(s.getString());
        }
        return names;
    }

    /**
     * Extra dependencies of a runtime image, {@code {"apt": ["pkg", ...], "script": "..."}} under
     * {@code name} (the last component of it is the member of {@code parent}), both optional.
     */
    static ExtraDependencies extraDependencies(JsonObject parent, String name) {
        JsonObject json = JsonFields.object(parent, name.substring(name.lastIndexOf('.') + 1), name);
        JsonFields.requireOnly(json, EXTRA_DEPS_FIELDS, name);
        JsonValue apt = json.get("apt");
        List<String> packages = new ArrayList<>();
        if (apt != null && apt.getValueType() != JsonValue.ValueType.NULL) {
            if (apt.getValueType() != JsonValue.ValueType.ARRAY) {
                throw invalid(name + ".apt must be an array of package names");
            }
            for (JsonValue p : apt.asJsonArray()) {
                if (!(p instanceof JsonString s)) {
                    throw invalid(name + ".apt must be an array of package names");
                }
                packages.add(s.getString());
            }
        }
        ExtraDependencies extra = new ExtraDependencies(packages,
                string(json, "script", ""));
        try {
            RuntimeDockerfile.requireValid(extra);
        } catch (IllegalArgumentException e) {
            throw invalid(name + ": " + e.getMessage());
        }
        return extra;
    }

    /** A Docker image reference (name[:tag][@digest]), else a 400 naming {@code field}. */
    static void requireImage(String image, String field) {
        if (image == null || !IMAGE.matcher(image).matches() || image.length() > 255) {
            throw invalid(field + " '" + image + "' is not a valid image reference");
        }
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }

    private static JsonObject object(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        if (v.getValueType() != JsonValue.ValueType.OBJECT) {
            throw invalid(key + " must be an object");
        }
        return v.asJsonObject();
    }

    private static String string(JsonObject o, String key, String fallback) {
        return JsonFields.string(o, key, fallback, key);
    }

    private static double number(JsonObject o, String key, double fallback) {
        return JsonFields.number(o, key, fallback, "sandbox." + key);
    }

    private static int integer(JsonObject o, String key, int fallback) {
        return JsonFields.integer(o, key, fallback, "sandbox." + key);
    }
}
