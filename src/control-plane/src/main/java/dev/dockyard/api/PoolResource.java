package dev.dockyard.api;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.persistence.DatabaseOutage;
import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolProgram;
import dev.dockyard.pool.PoolSettings;
import dev.dockyard.pool.WarmPools;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionalException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Warm pools (admins only): {@code PUT /pools/{name}} declares or redefines one, {@code GET} shows
 * it with its counts, {@code DELETE} removes it and its warm sandboxes. See {@code dev.dockyard.pool}.
 */
@Path("pools")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class PoolResource {

    /** The members a pool body takes. */
    static final Set<String> FIELDS = Set.of("image", "cpus", "memoryMb", "plugins", "node", "size",
            "maxBooting", "program", "sandbox");
    /** The members of a pool's {@code sandbox}: named as in a provision body, whose requests it serves. */
    static final Set<String> SANDBOX_FIELDS = Set.of("executorServer");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern USER = Pattern.compile("\\d{1,10}(:\\d{1,10})?");
    /** The largest group id a pool takes: what the Remote Runtime API's start takes. */
    private static final long MAX_ID = 1_999_999_999L;
    /** The sealed column holds 32000 characters; sealing adds a third and more. */
    private static final int MAX_PROGRAM_CHARS = 16_000;
    /** The members of a pool's {@code program}. */
    static final Set<String> PROGRAM_FIELDS = Set.of("command", "workingDir", "user", "fsGroup", "environment",
            "deferredInit");

    @Inject
    Caller caller;

    @Inject
    WarmPools pools;

    @Inject
    DockyardConfig config;

    @Inject
    BackendNodes nodes;

    @GET
    public JsonObject list() {
        requireAdmin();
        JsonArrayBuilder list = Jsonp.createArrayBuilder();
        pools.states().forEach(s -> list.add(view(s)));
        return Jsonp.createObjectBuilder().add("pools", list).build();
    }

    @GET
    @Path("{name}")
    public JsonObject get(@PathParam("name") String name) {
        requireAdmin();
        return pools.state(name).map(PoolResource::view).orElseThrow(() -> notFound(name));
    }

    /** 201 when created, 200 when redefined (its warm sandboxes of the old settings are replaced). */
    @PUT
    @Path("{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response put(@PathParam("name") String name, JsonObject body) {
        requireAdmin();
        PoolSettings settings = read(name, body);
        boolean created;
        try {
            created = pools.declare(settings, "api");
        } catch (IllegalArgumentException e) {
            throw Problem.of(Problem.Kind.VALIDATION, e.getMessage()).toException();
        } catch (PersistenceException | TransactionalException e) {
            if (DatabaseOutage.causes(e)) {
                // no concurrent PUT: the database did not answer (503 with Retry-After)
                throw e;
            }
            // a concurrent PUT of the same pool won
            throw Problem.of(Problem.Kind.CONFLICT, "pool '" + name + "' was changed at the same time; read it "
                    + "and try again").toException();
        }
        return Response.status(created ? Response.Status.CREATED : Response.Status.OK)
                .entity(view(pools.state(name).orElseThrow(() -> notFound(name)))).build();
    }

    @DELETE
    @Path("{name}")
    public Response delete(@PathParam("name") String name) {
        requireAdmin();
        if (!pools.delete(name)) {
            throw notFound(name);
        }
        return Response.noContent().build();
    }

    PoolSettings read(String name, JsonObject body) {
        if (body == null) {
            throw invalid("a JSON object is required: {\"size\": N, ...}");
        }
        JsonFields.requireOnly(body, FIELDS, "");
        if (!(body.get("size") instanceof JsonNumber)) {
            throw invalid("size is required: the number of sandboxes kept ready");
        }
        String image = JsonFields.string(body, "image", config.sandboxImage(), "image");
        ProvisionRequestReader.requireImage(image, "image");
        JsonObject sandbox = JsonFields.object(body, "sandbox", "sandbox");
        JsonFields.requireOnly(sandbox, SANDBOX_FIELDS, "sandbox");
        // absent: the node's, settled as the pool is declared (WarmPools#declare)
        ExecutorServer executorServer = ProvisionRequestReader.executorServer(sandbox);
        return new PoolSettings(name, image,
                JsonFields.number(body, "cpus", config.sandboxCpus(), "cpus"),
                JsonFields.integer(body, "memoryMb", config.sandboxMemoryMb(), "memoryMb"),
                plugins(body),
                JsonFields.string(body, "node", nodes.defaultNode(), "node"),
                JsonFields.integer(body, "size", 0, "size"),
                JsonFields.integer(body, "maxBooting", 2, "maxBooting"), program(body), executorServer);
    }

    /**
     * {@code "program": {"command": [...], "workingDir", "user", "fsGroup", "environment": {...},
     * "deferredInit": true}}: a pool of another image's server that starts dormant. {@code user}
     * and {@code fsGroup} are matched against a start's {@code run_as_user}[{@code :run_as_group}]
     * and {@code fs_group} (OpenHands' SDK sends {@code 10001} for both). Only servers
     * that follow the deferred-init contract can be pooled (nothing else could be given its key at
     * claim), so {@code deferredInit} must say so.
     */
    private static PoolProgram program(JsonObject body) {
        JsonValue value = body.get("program");
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(value instanceof JsonObject program)) {
            throw invalid("program must be an object {\"command\", \"workingDir\", \"user\", \"fsGroup\", "
                    + "\"environment\", \"deferredInit\"}");
        }
        JsonFields.requireOnly(program, PROGRAM_FIELDS, "program");
        if (program.get("deferredInit") != JsonValue.TRUE) {
            throw invalid("program.deferredInit must be true: only a server that starts dormant and takes its key "
                    + "through POST /api/init (OpenHands' agent server with OH_DEFERRED_INIT) can wait in a pool");
        }
        List<String> command = new ArrayList<>();
        JsonValue args = program.get("command");
        if (args != null && args.getValueType() != JsonValue.ValueType.NULL) {
            if (args.getValueType() != JsonValue.ValueType.ARRAY) {
                throw invalid("program.command must be an array of strings");
            }
            for (JsonValue arg : args.asJsonArray()) {
                if (!(arg instanceof JsonString s)) {
                    throw invalid("program.command must be an array of strings");
                }
                command.add(s.getString());
            }
        }
        Map<String, String> environment = new LinkedHashMap<>();
        JsonValue env = program.get("environment");
        if (env != null && env.getValueType() != JsonValue.ValueType.NULL) {
            if (!(env instanceof JsonObject vars)) {
                throw invalid("program.environment must be an object of strings");
            }
            vars.forEach((k, v) -> {
                if (!(v instanceof JsonString s)) {
                    throw invalid("program.environment must be an object of strings");
                }
                if (!ENV_NAME.matcher(k).matches()) {
                    throw invalid("program.environment: '" + k + "' is not a variable name");
                }
                environment.put(k, s.getString());
            });
        }
        if (program.toString().length() > MAX_PROGRAM_CHARS) {
            throw invalid("program is larger than " + MAX_PROGRAM_CHARS + " characters");
        }
        String user = JsonFields.string(program, "user", null, "user");
        if (user != null && !USER.matcher(user).matches()) {
            throw invalid("program.user must be uid or uid:gid (numbers)");
        }
        Long fsGroup = null;
        JsonValue group = program.get("fsGroup");
        if (group != null && group.getValueType() != JsonValue.ValueType.NULL) {
            if (!(group instanceof JsonNumber n) || !n.isIntegral() || n.bigIntegerValue().signum() < 0
                    || n.bigIntegerValue().compareTo(BigInteger.valueOf(MAX_ID)) > 0) {
                throw invalid("program.fsGroup must be a group id (an integer from 0 to " + MAX_ID + ")");
            }
            fsGroup = n.longValue();
        }
        return new PoolProgram(command, JsonFields.string(program, "workingDir", null, "workingDir"), user, environment,
                fsGroup);
    }

    private static List<String> plugins(JsonObject body) {
        JsonValue value = body.get("plugins");
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (value.getValueType() != JsonValue.ValueType.ARRAY) {
            throw invalid("plugins must be an array of plugin names");
        }
        List<String> names = new ArrayList<>();
        for (JsonValue v : value.asJsonArray()) {
            if (!(v instanceof JsonString s) || !ProvisionRequestReader.AVAILABLE_PLUGINS.contains(s.getString())) {
                throw invalid("plugins must name available plugins: " + ProvisionRequestReader.AVAILABLE_PLUGINS);
            }
            names.add(s.getString());
        }
        return names;
    }

    static JsonObject view(WarmPools.PoolState state) {
        PoolDefinition d = state.definition();
        JsonArrayBuilder plugins = Jsonp.createArrayBuilder();
        d.plugins().forEach(plugins::add);
        JsonObjectBuilder view = Jsonp.createObjectBuilder()
                .add("name", d.name())
                .add("image", d.image())
                .add("cpus", d.cpus())
                .add("memoryMb", d.memoryMb())
                .add("plugins", plugins)
                .add("node", d.node())
                .add("size", d.size())
                .add("maxBooting", d.maxBooting())
                .add("source", d.source())
                .add("updatedAt", d.updatedAt().toString())
                .add("ready", state.ready())
                .add("booting", state.booting())
                .add("claimed", state.claimed())
                .add("hits", state.hits())
                .add("misses", state.misses());
        d.executorServer().ifPresent(server -> view.add("sandbox",
                Jsonp.createObjectBuilder().add("executorServer", server.apiName())));
        d.program().ifPresent(p -> {
            JsonArrayBuilder command = Jsonp.createArrayBuilder();
            p.command().forEach(command::add);
            JsonObjectBuilder program = Jsonp.createObjectBuilder().add("command", command).add("deferredInit", true);
            if (p.workingDir() != null) {
                program.add("workingDir", p.workingDir());
            }
            if (p.user() != null) {
                program.add("user", p.user());
            }
            if (p.fsGroup() != null) {
                program.add("fsGroup", p.fsGroup());
            }
            // the environment's names only: its values may be an admin's secrets
            JsonArrayBuilder names = Jsonp.createArrayBuilder();
            p.environment().keySet().forEach(names::add);
            view.add("program", program.add("environmentNames", names));
        });
        if (state.lastError() != null) {
            view.add("lastError", state.lastError());
        }
        return view.build();
    }

    private void requireAdmin() {
        if (!caller.isAdmin()) {
            throw Problem.of(Problem.Kind.FORBIDDEN, "Only admins declare and read warm pools").toException();
        }
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }

    private static Problem.ProblemException notFound(String name) {
        return Problem.of(Problem.Kind.NOT_FOUND, "no pool '" + name + "'").toException();
    }
}
