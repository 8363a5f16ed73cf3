package dev.dockyard.api;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;
import java.util.Locale;

/** The runtime body of API.md. Secrets (the session key) and backend internals stay out. */
public final class RuntimeView {

    private RuntimeView() {
    }

    public static JsonObject of(SandboxRuntime r) {
        JsonObjectBuilder b = Jsonp.createObjectBuilder()
                .add("id", r.id())
                .add("conversationId", r.conversationId())
                .add("userId", r.userId())
                .add("status", r.status().name());
        addNullable(b, "statusMessage", r.statusMessage());
        b.add("backend", r.backend());
        addNullable(b, "node", r.node());
        addNullable(b, "replaces", r.replaces());
        b.add("image", r.image());
        addNullable(b, "runtimeImage", r.runtimeImage());
        // the warm pool the sandbox was claimed from; absent for a sandbox provisioned for this runtime
        r.pool().ifPresent(p -> b.add("pool", p));
        JsonArrayBuilder plugins = Jsonp.createArrayBuilder();
        r.plugins().forEach(plugins::add);
        b.add("plugins", plugins);
        r.repository().ifPresent(repo -> {
            JsonObjectBuilder repository = Jsonp.createObjectBuilder().add("url", repo.url());
            addNullable(repository, "branch", repo.branch());
            addNullable(repository, "newBranch", repo.newBranch());
            addNullable(repository, "credential", repo.credential());
            b.add("repository", repository);
        });
        addNullable(b, "createdAt", r.createdAt());
        addNullable(b, "readyAt", r.readyAt());
        b.add("resources", Jsonp.createObjectBuilder().add("cpus", r.cpus()).add("memoryMb", r.memoryMb()));
        // how its sandbox starts the executor, as it does: null for another image's program, which runs none
        JsonObjectBuilder sandbox = Jsonp.createObjectBuilder();
        addNullable(sandbox, "executorServer", r.executorServer().map(ExecutorServer::apiName).orElse(null));
        b.add("sandbox", sandbox);
        // the egress policy, with an allowlist's names as the addresses they resolved to when it was asked for
        JsonArrayBuilder egress = Jsonp.createArrayBuilder();
        r.egress().allowed().forEach(d -> egress.add(d.toString()));
        b.add("network", Jsonp.createObjectBuilder().add("mode", r.egress().mode().apiName()).add("egress", egress));
        JsonObjectBuilder lifecycle = Jsonp.createObjectBuilder().add("keepAlive", r.keepAlive())
                .add("idleTimeoutSeconds", r.idleTimeoutSeconds()).add("ttlSeconds", r.ttlSeconds());
        boolean asleep = r.status() == RuntimeStatus.PAUSED || r.status() == RuntimeStatus.HIBERNATED;
        addNullable(lifecycle, "pausedBy", asleep ? r.pauseReason().name().toLowerCase(Locale.ROOT) : null);
        b.add("lifecycle", lifecycle);
        addNullable(b, "agent", r.agent());
        JsonObjectBuilder llm = Jsonp.createObjectBuilder();
        addNullable(llm, "model", r.llmModel());
        addNullable(llm, "baseUrl", r.llmBaseUrl());
        b.add("llm", llm);
        return b.build();
    }

    private static void addNullable(JsonObjectBuilder b, String key, Object value) {
        if (value == null) {
            b.addNull(key);
        } else {
            b.add(key, value instanceof Instant i ? i.toString() : value.toString());
        }
    }
}
