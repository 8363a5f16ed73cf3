package dev.dockyard.executor.api;

import dev.dockyard.executor.ResourceUsage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Optional;

/** Liveness, readiness (a Dockyard addition) and the OpenHands {@code /server_info}. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    private final ExecutorLifecycle lifecycle;

    HealthResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @GET
    @Path("alive")
    public JsonObject alive() {
        return status(lifecycle.initialized() ? "ok" : "not initialized");
    }

    /**
     * 200 only when the shell and every requested plugin are up; the control plane waits for it.
     * A plugin that failed to start makes it 503 with {@code "status": "failed"}, the plugin's name
     * and why, so the control plane stops waiting at once and reports it.
     */
    @GET
    @Path("ready")
    public Response ready() {
        if (lifecycle.initialized()) {
            var plugins = lifecycle.executor().plugins();
            var failed = plugins.failure();
            if (failed.isPresent()) {
                return Response.status(Response.Status.SERVICE_UNAVAILABLE).entity(Json.createObjectBuilder()
                        .add("status", "failed").add("plugin", failed.get().getKey())
                        .add("detail", failed.get().getValue()).build()).build();
            }
            if (plugins.ready()) {
                return Response.ok(status("ok")).build();
            }
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).entity(Json.createObjectBuilder()
                    .add("status", "not ready").add("detail", "starting plugins " + plugins.names()).build()).build();
        }
        JsonObjectBuilder body = Json.createObjectBuilder().add("status", "not ready");
        if (lifecycle.failure() != null) {
            body.add("detail", lifecycle.failure());
        }
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).entity(body.build()).build();
    }

    /**
     * OpenHands' {@code resources} (see {@link ResourceUsage}: the executor's own process, sampled
     * over 0.1 s as OpenHands does) with Dockyard's additions beside them: {@code cpu_count},
     * {@code jvm} (heap in use and its cap) and {@code cgroup_memory} (the sandbox's memory use and
     * limit, where the cgroup says).
     */
    @GET
    @Path("server_info")
    public JsonObject serverInfo() {
        JsonObjectBuilder resources = Json.createObjectBuilder(ResourceUsage.ofThisProcess().measure())
                .add("cpu_count", Runtime.getRuntime().availableProcessors());
        Runtime jvm = Runtime.getRuntime();
        resources.add("jvm", Json.createObjectBuilder().add("heap_used", jvm.totalMemory() - jvm.freeMemory())
                .add("heap_max", jvm.maxMemory()));
        JsonObjectBuilder cgroup = Json.createObjectBuilder();
        readCgroup("memory.current").ifPresent(v -> cgroup.add("current", v));
        readCgroup("memory.max").ifPresent(v -> cgroup.add("max", v));
        resources.add("cgroup_memory", cgroup);
        return Json.createObjectBuilder()
                .add("uptime", lifecycle.initialized() ? lifecycle.executor().uptimeSeconds() : 0.0)
                .add("idle_time", lifecycle.initialized() ? lifecycle.executor().idleSeconds() : 0.0)
                .add("resources", resources)
                .build();
    }

    private static Optional<Long> readCgroup(String file) {
        try {
            String value = Files.readString(Paths.get("/sys/fs/cgroup", file)).strip();
            return value.equals("max") ? Optional.empty() : Optional.of(Long.parseLong(value));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static JsonObject status(String status) {
        return Json.createObjectBuilder().add("status", status).build();
    }
}
