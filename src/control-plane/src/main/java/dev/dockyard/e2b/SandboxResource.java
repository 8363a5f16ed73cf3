package dev.dockyard.e2b;

import dev.dockyard.api.Caller;
import dev.dockyard.api.JsonFields;
import dev.dockyard.api.Problem;
import dev.dockyard.api.ProblemMappers;
import dev.dockyard.application.e2b.E2bSandboxes;
import dev.dockyard.application.e2b.SandboxMetric;
import dev.dockyard.application.e2b.Page;
import dev.dockyard.application.e2b.SandboxQuery;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Set;

/**
 * E2B's sandbox routes, v1 and v2 forms (see the package). A sandbox id the caller may not see is
 * unknown, 404, like one that never existed or was killed. Bodies are read whatever their content
 * type (the SDKs send JSON; a body may be empty where every member is optional).
 */
@Path("/")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class SandboxResource {

    /** The members of a connect body (v1: timeout; v2: timeout and memory) and of a pause body. */
    static final Set<String> CONNECT_FIELDS = Set.of("timeout", "memory");
    static final Set<String> TIMEOUT_FIELDS = Set.of("timeout");
    static final Set<String> PAUSE_FIELDS = Set.of("memory");
    static final Set<String> FORK_FIELDS = Set.of("timeout", "count");
    static final String NEXT_TOKEN = "X-Next-Token";
    /** The most forks one call makes: each is a snapshot and a boot, answered once READY. */
    static final int MAX_FORKS = 5;

    @Inject
    Caller caller;

    @Inject
    E2bSandboxes sandboxes;

    @Inject
    DockyardConfig config;

    @POST
    @Path("sandboxes")
    public Response create(JsonObject body) {
        SandboxRuntime created = sandboxes.create(caller.userId(), caller.role(), NewSandboxReader.read(body));
        return Response.status(Response.Status.CREATED).entity(SandboxView.sandbox(created)).build();
    }

    @POST
    @Path("v2/sandboxes")
    public Response createV2(JsonObject body) {
        return create(body);
    }

    /** E2B's v1 list: the running sandboxes whose metadata holds the filter, unpaged. */
    @GET
    @Path("sandboxes")
    public String listV1(@QueryParam("metadata") String metadata) {
        Page<SandboxRuntime> page = sandboxes.list(caller.userId(), caller.isAdmin(),
                SandboxQuery.running(SandboxQueryReader.metadata(metadata)));
        return listed(page).toString();
    }

    @GET
    @Path("v2/sandboxes")
    public Response list(@QueryParam("metadata") String metadata, @QueryParam("state") List<String> states,
                         @QueryParam("template") String template, @QueryParam("startedAfter") String startedAfter,
                         @QueryParam("order") String order, @QueryParam("limit") String limit,
                         @QueryParam("nextToken") String nextToken) {
        Page<SandboxRuntime> page = sandboxes.list(caller.userId(), caller.isAdmin(),
                SandboxQueryReader.read(metadata, states, template, startedAfter, order, limit, nextToken));
        Response.ResponseBuilder answer = Response.ok(listed(page).toString());
        if (page.next() != null) {
            // never an empty header on the last page: the SDK reads any value as one more page
            answer.header(NEXT_TOKEN, page.next().encode());
        }
        return answer.build();
    }

    private JsonValue listed(Page<SandboxRuntime> page) {
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        page.items().forEach(r -> items.add(SandboxView.listedSandbox(r, config.sandboxDiskMb())));
        return items.build();
    }

    @GET
    @Path("sandboxes/{sandboxID}")
    public JsonObject get(@PathParam("sandboxID") String sandboxId) {
        return SandboxView.detail(visible(sandboxId), config.sandboxDiskMb());
    }

    @DELETE
    @Path("sandboxes/{sandboxID}")
    public Response kill(@PathParam("sandboxID") String sandboxId) {
        sandboxes.kill(visible(sandboxId));
        return Response.noContent().build();
    }

    /** Its end {@code timeout} seconds from now, earlier or later: 204. */
    @POST
    @Path("sandboxes/{sandboxID}/timeout")
    public Response timeout(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, TIMEOUT_FIELDS, "");
        if (!b.containsKey("timeout")) {
            throw NewSandboxReader.invalid("timeout is required: the sandbox's seconds from now");
        }
        int seconds = NewSandboxReader.timeout(b);
        sandboxes.setTimeout(visible(sandboxId), seconds);
        return Response.noContent().build();
    }

    /** Resumes a paused sandbox (201) or finds it running (200); its end only ever moves later. */
    @POST
    @Path("sandboxes/{sandboxID}/connect")
    public Response connect(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, CONNECT_FIELDS, "");
        requireMemory(b);
        E2bSandboxes.Connected connected = sandboxes.connect(visible(sandboxId), NewSandboxReader.timeout(b));
        return Response.status(connected.resumed() ? Response.Status.CREATED : Response.Status.OK)
                .entity(SandboxView.sandbox(connected.runtime())).build();
    }

    @POST
    @Path("v2/sandboxes/{sandboxID}/connect")
    public Response connectV2(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        return connect(sandboxId, body);
    }

    /** E2B's deprecated resume: a paused sandbox resumed (201); a running one is a conflict, 409. */
    @POST
    @Path("sandboxes/{sandboxID}/resume")
    public Response resume(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, Set.of("timeout", "autoPause"), "");
        if (JsonFields.bool(b, "autoPause", false, "autoPause")) {
            throw NewSandboxReader.invalid("autoPause on a resume is not served: what a sandbox does at its end "
                    + "is set when it is created");
        }
        SandboxRuntime runtime = visible(sandboxId);
        E2bSandboxes.Connected connected = sandboxes.resume(runtime, NewSandboxReader.timeout(b));
        return Response.status(Response.Status.CREATED).entity(SandboxView.sandbox(connected.runtime())).build();
    }

    /** Pauses a running sandbox: 204; one already paused is a conflict, 409 (the SDK answers false). */
    @POST
    @Path("sandboxes/{sandboxID}/pause")
    public Response pause(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, PAUSE_FIELDS, "");
        requireMemory(b);
        sandboxes.pause(visible(sandboxId));
        return Response.noContent().build();
    }

    /**
     * One sample of what the sandbox uses now, when its backend measures it; else none ({@code []}).
     * Dockyard keeps no series, so the SDK's {@code start} and {@code end} select nothing.
     */
    @GET
    @Path("sandboxes/{sandboxID}/metrics")
    public String metrics(@PathParam("sandboxID") String sandboxId) {
        JsonArrayBuilder samples = Jsonp.createArrayBuilder();
        sandboxes.metrics(visible(sandboxId)).ifPresent(m -> samples.add(metric(m)));
        return samples.build().toString();
    }

    static JsonObject metric(SandboxMetric m) {
        return Jsonp.createObjectBuilder()
                .add("timestamp", m.at().toString())
                .add("timestampUnix", m.at().getEpochSecond())
                .add("cpuCount", m.cpuCount())
                .add("cpuUsedPct", m.cpuUsedPct())
                .add("memUsed", m.memUsed())
                .add("memTotal", m.memTotal())
                .add("memCache", m.memCache())
                .add("diskUsed", m.diskUsed())
                .add("diskTotal", m.diskTotal())
                .build();
    }

    /** Dockyard cannot change a live sandbox's egress policy: 400 once the sandbox is known to be the caller's. */
    @PUT
    @Path("sandboxes/{sandboxID}/network")
    public Response network(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        visible(sandboxId);
        throw NewSandboxReader.invalid("Dockyard cannot change a running sandbox's network: its egress policy is "
                + "set when it is created (allow_internet_access)");
    }

    /**
     * Forks the sandbox {@code count} times (1 to {@value #MAX_FORKS}, default 1): 201 with one entry
     * per fork, its {@code sandbox} or its {@code error}, E2B's shape for either.
     */
    @POST
    @Path("sandboxes/{sandboxID}/fork")
    public Response fork(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, FORK_FIELDS, "");
        int count = JsonFields.integer(b, "count", 1, "count");
        if (count < 1 || count > MAX_FORKS) {
            throw NewSandboxReader.invalid("count must be from 1 to " + MAX_FORKS);
        }
        int timeout = NewSandboxReader.timeout(b);
        JsonArrayBuilder forks = Jsonp.createArrayBuilder();
        for (E2bSandboxes.Forked forked : sandboxes.fork(visible(sandboxId), caller.userId(), caller.role(), timeout,
                count)) {
            if (forked.sandbox() != null) {
                forks.add(Jsonp.createObjectBuilder().add("sandbox", SandboxView.sandbox(forked.sandbox())));
            } else {
                Problem problem = ProblemMappers.problemOf(forked.refusal());
                forks.add(Jsonp.createObjectBuilder().add("error", E2bErrors.body(
                        E2bErrors.code(problem.kind().status()), problem.detail())));
            }
        }
        return Response.status(Response.Status.CREATED).entity(forks.build().toString()).build();
    }

    /** {@code memory: false} asks for a pause or resume without memory, which Dockyard's pause does not do. */
    private static void requireMemory(JsonObject body) {
        if (!JsonFields.bool(body, "memory", true, "memory")) {
            throw NewSandboxReader.invalid("memory false (without the sandbox's memory) is not served: Dockyard's "
                    + "pause keeps it");
        }
    }

    private SandboxRuntime visible(String sandboxId) {
        return visible(sandboxes, caller, sandboxId);
    }

    /** The caller's sandbox, else E2B's 404 (another user's is as unknown as a missing one). */
    static SandboxRuntime visible(E2bSandboxes sandboxes, Caller caller, String sandboxId) {
        return sandboxes.find(caller.userId(), caller.isAdmin(), sandboxId).orElseThrow(() ->
                Problem.of(Problem.Kind.NOT_FOUND, "Sandbox " + sandboxId + " not found").toException());
    }
}
