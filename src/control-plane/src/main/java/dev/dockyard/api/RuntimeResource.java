package dev.dockyard.api;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.api.events.RuntimeEventStreams;
import dev.dockyard.api.events.RuntimeFeed;
import dev.dockyard.application.idempotency.IdempotentRequests;
import dev.dockyard.application.runtimes.ActionService;
import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.application.runtimes.SandboxFiles;
import dev.dockyard.audit.AuditTrail;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.ProvisioningStep;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

/**
 * Runtimes: provision, list, look at, delete, and act in (API.md). Each method parses, checks the
 * caller may see the runtime, calls one application service and maps its answer; waits
 * ({@code Prefer: wait}, retries of an idempotent request) are answered asynchronously.
 */
@Path("runtimes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RuntimeResource {

    private static final Pattern REQUEST_ID = Pattern.compile("[\\x21-\\x7E]{1,200}");
    private static final Pattern PREFER_WAIT = Pattern.compile("(?:^|[,;\\s])wait\\s*=\\s*(\\d{1,4})");
    /** Beyond the longest wait a service may take, after which a suspended request is answered anyway. */
    private static final int BACKSTOP_SECONDS = 30;

    /** Chaos testing: fail a provisioning step on purpose; honoured only with dockyard.fault-injection=true. */
    static final String FAULT_HEADER = "X-Dockyard-Fail-At";
    static final String IDEMPOTENCY_HEADER = "Idempotency-Key";
    static final String REPLAYED_HEADER = "Idempotent-Replayed";

    @Inject
    Caller caller;

    @Inject
    DockyardConfig config;

    @Inject
    RuntimeQueries runtimes;

    @Inject
    AgentCatalog agents;

    @Inject
    AuditTrail auditTrail;

    @Inject
    RuntimeService lifecycle;

    @Inject
    AnswerBackstops backstops;

    @Inject
    ActionService actions;

    @Inject
    IdempotentRequests idempotent;

    @Inject
    RuntimeEventStreams events;

    @Inject
    SandboxFiles files;

    @Inject
    RuntimeFeed feed;

    @Context
    UriInfo uri;

    @Inject
    InputLimits limits;

    /**
     * Provisions a runtime (API.md). With an {@code Idempotency-Key} the first answer is stored and
     * every retry with the same key (same user, same body) gets it again, without provisioning twice.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public void provision(JsonObject body, @HeaderParam("Prefer") String prefer,
                          @HeaderParam(FAULT_HEADER) String fault,
                          @HeaderParam(IDEMPOTENCY_HEADER) String idempotencyKey, @Suspended AsyncResponse async) {
        int wait = preferredWait(prefer);
        suspend(async, Math.max(wait, (int) IdempotentRequests.REPLAY_WAIT.toSeconds()));
        try {
            // read now: the request's scope is gone when a wait ends
            String userId = caller.userId();
            Role role = caller.role();
            URI base = uri.getBaseUri();
            Supplier<CompletionStage<Response>> first = () -> ProvisionAnswers.answered(() -> {
                ProvisioningRequest request = ProvisionRequestReader.read(body, userId, role, config, agents);
                if (fault != null) {
                    request = request.failingAt(faultAt(fault));
                }
                return accepted(provisioned(request), wait, base);
            });
            ProvisionAnswers.once(async, idempotent, userId, idempotencyKey, body == null ? "" : body.toString(), first,
                    base);
        } catch (RuntimeException e) {
            async.resume(e);
        }
    }

    private SandboxRuntime provisioned(ProvisioningRequest request) {
        return ProvisionAnswers.refusalsAnswered(() -> lifecycle.provision(request));
    }

    private CompletionStage<Response> accepted(SandboxRuntime runtime, int wait, URI base) {
        return ProvisionAnswers.accepted(lifecycle, runtime, wait, base);
    }

    /** Holds the answer back; a backstop answers should a service never complete. */
    private void suspend(AsyncResponse async, int longestWaitSeconds) {
        backstops.guard(async, Duration.ofSeconds(longestWaitSeconds + BACKSTOP_SECONDS), () -> Problem.of(
                Problem.Kind.INTERNAL, "No answer within " + (longestWaitSeconds + BACKSTOP_SECONDS) + " s")
                .toException());
    }

    private ProvisioningStep faultAt(String step) {
        if (step == null) {
            return null;
        }
        if (!config.faultInjection()) {
            throw Problem.of(Problem.Kind.VALIDATION, FAULT_HEADER + " is honoured only when "
                    + "dockyard.fault-injection is true").toException();
        }
        return ProvisioningStep.byLabel(step).orElseThrow(() -> Problem.of(Problem.Kind.VALIDATION,
                FAULT_HEADER + " must name a step: " + Arrays.toString(ProvisioningStep.values())).toException());
    }

    /**
     * Moves a READY runtime to another backend node (body {@code {"node": "..."}}, optional: the
     * first other node): answers like a provision, with the new runtime, which takes the
     * conversation over once READY; the old one is removed then, or serves on if the move fails.
     */
    @POST
    @Path("{id}/migrate")
    public void migrate(@PathParam("id") String id, String body, @HeaderParam("Prefer") String prefer,
                        @HeaderParam(FAULT_HEADER) String fault, @Suspended AsyncResponse async) {
        int wait = preferredWait(prefer);
        suspend(async, wait);
        try {
            String node = node(body);
            visible(id);
            SandboxRuntime migrated = lifecycle.migrate(id, node, faultAt(fault), caller.userId(), caller.role());
            ProvisionAnswers.resume(async, accepted(migrated, wait, uri.getBaseUri()));
        } catch (RuntimeException e) {
            async.resume(e);
        }
    }

    /** The members a migrate body takes. */
    static final Set<String> MIGRATE_FIELDS = Set.of("node");

    private String node(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        JsonObject request = JsonBodyReader.object(body, limits);
        JsonFields.requireOnly(request, MIGRATE_FIELDS, "");
        return JsonFields.string(request, "node", null, "node");
    }

    /** The seconds of {@code Prefer: wait=N}, at most {@link RuntimeService#MAX_WAIT_SECONDS}; 0 without. */
    static int preferredWait(String prefer) {
        if (prefer == null) {
            return 0;
        }
        Matcher m = PREFER_WAIT.matcher(prefer);
        return m.find() ? Math.min(Integer.parseInt(m.group(1)), RuntimeService.MAX_WAIT_SECONDS) : 0;
    }

    @GET
    public JsonObject list(@QueryParam("conversationId") String conversationId, @QueryParam("status") String status) {
        if (conversationId != null && !conversationId.isEmpty()) {
            SafeIds.require(conversationId, "conversationId");
        }
        RuntimeStatus wanted = null;
        if (status != null && !status.isBlank()) {
            try {
                wanted = RuntimeStatus.valueOf(status);
            } catch (IllegalArgumentException e) {
                throw Problem.of(Problem.Kind.VALIDATION, "status must be one of "
                        + Arrays.toString(RuntimeStatus.values())).toException();
            }
        }
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        runtimes.list(caller.isAdmin() ? null : caller.userId(), conversationId, wanted)
                .forEach(r -> items.add(RuntimeView.of(r)));
        return Jsonp.createObjectBuilder().add("runtimes", items).build();
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        return RuntimeView.of(visible(id));
    }

    @DELETE
    @Path("{id}")
    public Response delete(@PathParam("id") String id, @QueryParam("keepWorkspace") String keepWorkspace) {
        boolean keep = QueryParams.bool(keepWorkspace, "keepWorkspace", false);
        visible(id);
        if (keep) {
            // the kept workspace, whose id a later provision names as "workspace"
            return Response.ok(WorkspaceView.of(lifecycle.deleteKeepingWorkspace(id), false)).build();
        }
        lifecycle.delete(id, false);
        return Response.noContent().build();
    }

    @POST
    @Path("{id}/actions")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response act(@PathParam("id") String id,
                        @Parameter(hidden = true) @HeaderParam(HttpHeaders.CONTENT_LENGTH) String contentLength,
                        InputStream body, @HeaderParam(ExecutorClient.REQUEST_ID_HEADER) String requestId)
            throws IOException {
        // read here rather than by the JSON reader: the dict goes on to the executor as the bytes it came as
        JsonBodyReader.ObjectBody actionDict = new JsonBodyReader(limits).readObject(contentLength, body);
        if (actionDict == null) {
            throw Problem.of(Problem.Kind.INVALID_ACTION, "An action dict is required, e.g. {\"action\": \"run\", "
                    + "\"args\": {\"command\": \"ls\"}}").toException();
        }
        if (requestId != null && !REQUEST_ID.matcher(requestId).matches()) {
            // it travels on to the executor's ledger and its logs
            throw Problem.of(Problem.Kind.VALIDATION, ExecutorClient.REQUEST_ID_HEADER + " must be 1 to 200 visible "
                    + "ASCII characters").toException();
        }
        byte[] observation = actions.act(caller.userId(), visible(id), actionDict.object(), actionDict.utf8(),
                requestId);
        return Response.ok(observation, MediaType.APPLICATION_JSON_TYPE).build();
    }

    /** Freezes a READY runtime (API.md); already PAUSED is fine. Answers the runtime. */
    @POST
    @Path("{id}/pause")
    public JsonObject pause(@PathParam("id") String id) {
        visible(id);
        return RuntimeView.of(lifecycle.pause(id));
    }

    /** Thaws a PAUSED runtime and answers once it is READY again (API.md); already READY is fine. */
    @POST
    @Path("{id}/resume")
    public JsonObject resume(@PathParam("id") String id) {
        visible(id);
        return RuntimeView.of(lifecycle.resume(id));
    }

    /**
     * Hibernates a PAUSED runtime (API.md): its container is stopped, memory freed, files kept;
     * already HIBERNATED is fine. Answers the runtime.
     */
    @POST
    @Path("{id}/hibernate")
    public JsonObject hibernate(@PathParam("id") String id) {
        visible(id);
        return RuntimeView.of(lifecycle.hibernate(id));
    }

    /** The microagents of the runtime's repository (empty without one), read from the sandbox. */
    @GET
    @Path("{id}/microagents")
    public JsonObject microagents(@PathParam("id") String id) {
        JsonArrayBuilder list = Jsonp.createArrayBuilder();
        files.microagents(visible(id)).forEach(m -> list.add(m.toJson()));
        return Jsonp.createObjectBuilder().add("microagents", list).build();
    }

    /** The runtime's audit trail, newest first (at most {@code limit}, default 100, up to 1000). */
    @GET
    @Path("{id}/audit")
    public JsonObject audit(@PathParam("id") String id, @QueryParam("limit") String limitParam) {
        int limit = QueryParams.intInRange(limitParam, "limit", 100, 1, 1000);
        visible(id);
        return AuditView.of(auditTrail.ofRuntime(id, limit));
    }

    /**
     * {@code text/event-stream} of the runtime's transitions: its history first, then each change
     * as it commits, one {@code status} event each; the stream ends after STOPPED or ERROR.
     */
    @GET
    @Path("{id}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@PathParam("id") String id, @Context SseEventSink sink, @Context Sse sse) {
        visible(id);
        events.open(id, sink, sse);
    }

    /**
     * {@code text/event-stream} of the transitions of every runtime the caller may see (admins: all,
     * users: their own), one {@code status} event each with the runtime's id, owner and node; no
     * history, no end (docs/user-guide.md "Extensions to the contracts").
     */
    @GET
    @Path("events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void allEvents(@Context SseEventSink sink, @Context Sse sse) {
        feed.open(caller.isAdmin() ? null : caller.userId(), sink, sse);
    }

    /** Uploads a file (a .zip is unpacked) into the sandbox: multipart part {@code file}, as PROTOCOL.md's /upload_file. */
    @POST
    @Path("{id}/files")
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    public Response upload(@PathParam("id") String id, @QueryParam("destination") String destination,
                           @QueryParam("recursive") String recursiveParam,
                           @HeaderParam("Content-Type") String contentType, InputStream body) {
        boolean recursive = QueryParams.bool(recursiveParam, "recursive", false);
        String answer = files.upload(visible(id), contentType, body, destination, recursive);
        return Response.ok(answer, MediaType.APPLICATION_JSON_TYPE).build();
    }

    /** Downloads a file or a whole tree from the sandbox as a zip stream. */
    @GET
    @Path("{id}/files")
    @Produces({"application/zip", "application/problem+json"})
    public Response download(@PathParam("id") String id, @QueryParam("path") String path,
                             @Context HttpServletResponse servlet) {
        SandboxFiles.Download download = files.download(visible(id), path);
        StreamingOutput zip = out -> {
            try (InputStream in = download.zip()) {
                byte[] buffer = new byte[8192];
                for (int n = read(in, buffer, download, servlet); n >= 0; n = read(in, buffer, download, servlet)) {
                    out.write(buffer, 0, n);
                }
            }
        };
        return Response.ok(zip, "application/zip").header("Content-Disposition", download.contentDisposition()).build();
    }

    /**
     * The zip's next bytes from the executor. When it stops sending before the end, a client that
     * has received nothing yet gets the refusal instead of a 500 after the zip's first bytes (the
     * answer's buffer is dropped with its headers); one that has, a connection cut before the
     * stream's end, which it cannot take for a whole zip.
     */
    static int read(InputStream in, byte[] buffer, SandboxFiles.Download download,
                    HttpServletResponse servlet) throws IOException {
        try {
            return in.read(buffer);
        } catch (IOException e) {
            if (servlet.isCommitted()) {
                throw e;
            }
            servlet.reset();
            throw download.brokenOff(e);
        }
    }

    /** The runtime if the caller may see it; someone else's answers 404 exactly like an unknown id. */
    private SandboxRuntime visible(String id) {
        return RuntimeSnapshotResource.visible(runtimes, caller, id);
    }
}
