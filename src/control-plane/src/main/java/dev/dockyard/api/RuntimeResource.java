package dev.dockyard.api;

import dev.dockyard.config.DockyardConfig;
import dev.dockyard.persistence.RuntimeRepository;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.ProtocolJson;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.runtime.provisioning.ConversationBusyException;
import dev.dockyard.runtime.provisioning.Provisioner;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.runtime.provisioning.ProvisioningStep;
import dev.dockyard.tenancy.QuotaExceededException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Context;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runtimes: provision, list, look at, delete, and act in (API.md). */
@Path("runtimes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RuntimeResource {

    private static final Pattern PREFER_WAIT = Pattern.compile("(?:^|[,;\\s])wait\\s*=\\s*(\\d{1,4})");
    private static final int MAX_WAIT_SECONDS = 600;

    @Inject
    Caller caller;

    @Inject
    DockyardConfig config;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    Provisioner provisioner;

    @Inject
    ExecutorClient executors;

    @Inject
    dev.dockyard.runtime.StatusEvents statusEvents;

    @Inject
    dev.dockyard.api.idempotency.IdempotencyKeys idempotency;

    @Inject
    dev.dockyard.agents.AgentCatalog agents;

    @Inject
    dev.dockyard.security.SecurityAnalyzer analyzer;

    @Inject
    dev.dockyard.audit.AuditTrail auditTrail;

    @Inject
    dev.dockyard.workspace.Microagents microagents;

    @Inject
    dev.dockyard.runtime.lifecycle.PauseResume pauses;

    @jakarta.annotation.Resource
    jakarta.enterprise.concurrent.ManagedExecutorService streams;

    @Context
    UriInfo uri;

    /**
     * Provisions a runtime (API.md). With an {@code Idempotency-Key} the first answer is stored and
     * every retry with the same key (same user, same body) gets it again, without provisioning twice.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response provision(JsonObject body, @HeaderParam("Prefer") String prefer,
                              @HeaderParam(FAULT_HEADER) String fault,
                              @HeaderParam(IDEMPOTENCY_HEADER) String idempotencyKey) {
        if (idempotencyKey == null) {
            return provisionNow(body, prefer, fault);
        }
        if (idempotencyKey.isBlank() || idempotencyKey.length() > 200) {
            throw Problem.of(Problem.Kind.VALIDATION, IDEMPOTENCY_HEADER + " must be 1 to 200 characters").toException();
        }
        String id = caller.userId() + "/" + idempotencyKey;
        String hash = dev.dockyard.tenancy.ApiKeyRecord.hash(body == null ? "" : body.toString());
        try {
            idempotency.claim(id, hash);
        } catch (jakarta.persistence.PersistenceException | jakarta.transaction.TransactionalException taken) {
            return replay(id, hash);
        }
        Response answer;
        try {
            answer = provisionNow(body, prefer, fault);
        } catch (Problem.ProblemException e) {
            answer = e.problem().toResponse();
        } catch (RuntimeException e) {
            idempotency.release(id);
            throw e;
        }
        idempotency.complete(id, answer.getStatus(), String.valueOf(answer.getEntity()));
        return Response.fromResponse(answer).header(REPLAYED_HEADER, "false").build();
    }

    private Response replay(String id, String hash) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            java.util.Optional<dev.dockyard.api.idempotency.IdempotentAnswer> first = idempotency.find(id);
            if (first.isPresent() && !first.get().requestHash().equals(hash)) {
                throw Problem.of(Problem.Kind.IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_HEADER
                        + " was already used for a different request").toException();
            }
            if (first.isPresent() && first.get().completed()) {
                int status = first.get().status();
                Response.ResponseBuilder again = Response.status(status).entity(first.get().body())
                        .type(status >= 400 ? Problem.MEDIA_TYPE : MediaType.APPLICATION_JSON_TYPE)
                        .header(REPLAYED_HEADER, "true");
                if (status == 201 || status == 202) {
                    try (var reader = Json.createReader(new java.io.StringReader(first.get().body()))) {
                        again.location(uri.getBaseUriBuilder().path("runtimes")
                                .path(reader.readObject().getString("id")).build());
                    }
                }
                return again.build();
            }
            if (System.nanoTime() > deadline) {
                throw Problem.of(Problem.Kind.CONVERSATION_BUSY, "The first request with this " + IDEMPOTENCY_HEADER
                        + " is still being answered; retry later").toException();
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Problem.of(Problem.Kind.INTERNAL, "interrupted").toException();
            }
        }
    }

    private Response provisionNow(JsonObject body, String prefer, String fault) {
        ProvisioningRequest request = ProvisionRequestReader.read(body, caller.userId(), caller.role(), config, agents);
        if (fault != null) {
            request = withFault(request, fault);
        }
        SandboxRuntime runtime;
        try {
            runtime = provisioner.provision(request);
        } catch (ConversationBusyException e) {
            throw Problem.of(Problem.Kind.CONVERSATION_BUSY, e.getMessage())
                    .with("runtime", RuntimeView.of(e.existing())).toException();
        } catch (QuotaExceededException e) {
            throw Problem.of(Problem.Kind.QUOTA_EXCEEDED, e.getMessage())
                    .with("limit", Json.createValue(e.limit()))
                    .with("allowed", Json.createValue(e.allowed().doubleValue()))
                    .with("inUse", Json.createValue(e.inUse().doubleValue())).toException();
        }
        return accepted(runtime, prefer);
    }

    /** 202 with the runtime being provisioned, or 201 once READY when {@code Prefer: wait=N} says to wait. */
    private Response accepted(SandboxRuntime runtime, String prefer) {
        URI location = uri.getBaseUriBuilder().path("runtimes").path(runtime.id()).build();
        int wait = preferredWait(prefer);
        if (wait > 0) {
            provisioner.awaitSettled(runtime.id(), Duration.ofSeconds(wait));
            runtime = runtimes.find(runtime.id()).orElse(runtime);
        }
        Response.Status status = runtime.status() == RuntimeStatus.READY ? Response.Status.CREATED
                : Response.Status.ACCEPTED;
        Response.ResponseBuilder answer = Response.status(status).location(location).entity(RuntimeView.of(runtime));
        if (wait > 0) {
            answer.header("Preference-Applied", "wait=" + wait);
        }
        return answer.build();
    }

    /** Chaos testing: fail a provisioning step on purpose; honoured only with dockyard.fault-injection=true. */
    static final String FAULT_HEADER = "X-Dockyard-Fail-At";
    static final String IDEMPOTENCY_HEADER = "Idempotency-Key";
    static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private ProvisioningRequest withFault(ProvisioningRequest request, String step) {
        return request.failingAt(faultAt(step));
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
    public Response migrate(@PathParam("id") String id, String body, @HeaderParam("Prefer") String prefer,
                            @HeaderParam(FAULT_HEADER) String fault) {
        visible(id);
        String node = null;
        if (body != null && !body.isBlank()) {
            try (var reader = Json.createReader(new java.io.StringReader(body))) {
                JsonObject json = reader.readObject();
                jakarta.json.JsonValue value = json.get("node");
                if (value instanceof jakarta.json.JsonString s) {
                    node = s.getString();
                } else if (value != null && value.getValueType() != jakarta.json.JsonValue.ValueType.NULL) {
                    throw Problem.of(Problem.Kind.VALIDATION, "node must be a string").toException();
                }
            } catch (jakarta.json.JsonException | ClassCastException e) {
                throw Problem.of(Problem.Kind.VALIDATION, "The body must be a JSON object, e.g. {\"node\": \"node2\"}")
                        .toException();
            }
        }
        SandboxRuntime migrated;
        try {
            migrated = provisioner.migrate(id, node, faultAt(fault));
        } catch (dev.dockyard.backend.BackendNodes.UnknownNodeException e) {
            throw Problem.of(Problem.Kind.VALIDATION, e.getMessage()).toException();
        } catch (dev.dockyard.runtime.provisioning.MigrationRefusedException e) {
            throw Problem.of(Problem.Kind.MIGRATION_REFUSED, e.getMessage()).toException();
        }
        return accepted(migrated, prefer);
    }

    static int preferredWait(String prefer) {
        if (prefer == null) {
            return 0;
        }
        Matcher m = PREFER_WAIT.matcher(prefer);
        return m.find() ? Math.min(Integer.parseInt(m.group(1)), MAX_WAIT_SECONDS) : 0;
    }

    @GET
    public JsonObject list(@QueryParam("conversationId") String conversationId, @QueryParam("status") String status) {
        RuntimeStatus wanted = null;
        if (status != null && !status.isBlank()) {
            try {
                wanted = RuntimeStatus.valueOf(status);
            } catch (IllegalArgumentException e) {
                throw Problem.of(Problem.Kind.VALIDATION, "status must be one of "
                        + Arrays.toString(RuntimeStatus.values())).toException();
            }
        }
        JsonArrayBuilder items = Json.createArrayBuilder();
        runtimes.list(caller.isAdmin() ? null : caller.userId(), conversationId, wanted)
                .forEach(r -> items.add(RuntimeView.of(r)));
        return Json.createObjectBuilder().add("runtimes", items).build();
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        return RuntimeView.of(visible(id));
    }

    @DELETE
    @Path("{id}")
    public Response delete(@PathParam("id") String id, @QueryParam("keepWorkspace") String keepWorkspace) {
        visible(id);
        if (provisioner.isMigrating(id)) {
            // the move would bring it back on the other node once ready
            throw Problem.of(Problem.Kind.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated; delete it once the "
                    + "move has ended (or delete the runtime it is moving to)").toException();
        }
        if ("true".equalsIgnoreCase(keepWorkspace)) {
            // said plainly rather than ignored: the workspace would be lost while the caller thinks it kept
            throw Problem.of(Problem.Kind.NOT_IMPLEMENTED, "keepWorkspace=true is not supported yet: the workspace "
                    + "lives in the sandbox's container and goes with it. Download it first with GET /api/v1/runtimes/"
                    + id + "/files?path=/workspace, or migrate the runtime instead of deleting it").toException();
        }
        provisioner.stop(id);
        return Response.noContent().build();
    }

    @POST
    @Path("{id}/actions")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response act(@PathParam("id") String id, JsonObject actionDict,
                        @HeaderParam(ExecutorClient.REQUEST_ID_HEADER) String requestId) {
        SandboxRuntime runtime = visible(id);
        Action action = ProtocolJson.actionFromJson(actionDict);
        requireReady(runtime);
        dev.dockyard.security.Assessment assessment = analyzer.assess(action, actionDict);
        dev.dockyard.security.SecurityPolicy policy = agents.find(runtime.agent())
                .map(dev.dockyard.agents.AgentProfile::security).orElse(dev.dockyard.security.SecurityPolicy.DEFAULT);
        dev.dockyard.audit.AuditEntry.Decision decision = dev.dockyard.audit.AuditEntry.Decision.ALLOWED;
        switch (policy.decide(assessment.risk())) {
            case BLOCK -> {
                audit(runtime, action, assessment, dev.dockyard.audit.AuditEntry.Decision.BLOCKED, 403, null, 0, 0);
                throw riskProblem(Problem.Kind.ACTION_BLOCKED, "The security policy of agent '" + runtime.agent()
                        + "' blocks " + assessment.risk() + " risk actions", assessment).toException();
            }
            case CONFIRM -> {
                if (!confirmed(actionDict)) {
                    audit(runtime, action, assessment, dev.dockyard.audit.AuditEntry.Decision.AWAITING_CONFIRMATION, 409,
                            null, 0, 0);
                    throw riskProblem(Problem.Kind.CONFIRMATION_REQUIRED, "This action is rated " + assessment.risk()
                            + " risk; resubmit it with \"confirmation_state\": \"confirmed\" to run it", assessment)
                            .toException();
                }
                decision = dev.dockyard.audit.AuditEntry.Decision.CONFIRMED;
            }
            case ALLOW -> {
                // runs
            }
        }
        Duration timeout = action.timeout() == null ? config.actionTimeout()
                : Duration.ofMillis((long) (action.timeout() * 1000));
        ExecutorClient.ExecutorAnswer answer;
        long started = System.nanoTime();
        try {
            answer = executors.execute(URI.create(runtime.executorUrl()), runtime.sessionKey(), actionDict, timeout,
                    requestId);
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            audit(runtime, action, assessment, decision, 502, null, (System.nanoTime() - started) / 1_000_000, 0);
            throw Problem.of(Problem.Kind.EXECUTOR_FAILED, e.getMessage()).toException();
        }
        audit(runtime, action, assessment, decision, answer.status() == 200 ? 200 : answer.status(),
                exitCode(answer.body()), (System.nanoTime() - started) / 1_000_000, answer.body().length());
        if (answer.status() == 200) {
            return Response.ok(answer.body(), MediaType.APPLICATION_JSON_TYPE).build();
        }
        if (answer.status() == 400) {
            throw Problem.of(Problem.Kind.INVALID_ACTION, detail(answer.body())).toException();
        }
        if (answer.status() == 409) {
            throw Problem.of(Problem.Kind.REQUEST_ID_REUSED, detail(answer.body())).toException();
        }
        throw Problem.of(Problem.Kind.EXECUTOR_FAILED, "The executor answered " + answer.status() + ": "
                + detail(answer.body())).toException();
    }

    private static final Pattern EXIT_CODE = Pattern.compile("(?<!\\\\)\"exit_code\":\\s*(-?\\d+)");

    /** The observation's exit code, if it has one (inside output text the key would be escaped). */
    private static Integer exitCode(String observation) {
        Matcher m = EXIT_CODE.matcher(observation);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    /** OpenHands' confirmation: {@code "confirmation_state": "confirmed"} on the action or in its args. */
    private static boolean confirmed(JsonObject actionDict) {
        JsonObject args = actionDict.get("args") instanceof JsonObject a ? a : JsonValue.EMPTY_JSON_OBJECT;
        return "confirmed".equals(actionDict.getString("confirmation_state", null))
                || "confirmed".equals(args.getString("confirmation_state", null));
    }

    private static Problem riskProblem(Problem.Kind kind, String detail, dev.dockyard.security.Assessment assessment) {
        JsonArrayBuilder reasons = Json.createArrayBuilder();
        assessment.reasons().forEach(reasons::add);
        return Problem.of(kind, detail).with("risk", Json.createValue(assessment.risk().name()))
                .with("securityRisk", Json.createValue(assessment.risk().wireValue())).with("reasons", reasons.build());
    }

    private void audit(SandboxRuntime runtime, Action action, dev.dockyard.security.Assessment assessment,
                       dev.dockyard.audit.AuditEntry.Decision decision, int status, Integer exitCode, long millis,
                       long bytes) {
        auditTrail.record(new dev.dockyard.audit.AuditEntry(java.time.Instant.now(), caller.userId(), runtime.id(),
                action.type().wireName(), assessment.risk().name(), String.join("; ", assessment.reasons()), decision, status,
                exitCode, millis, bytes));
    }

    /** Freezes a READY runtime (API.md); already PAUSED is fine. Answers the runtime. */
    @POST
    @Path("{id}/pause")
    public JsonObject pause(@PathParam("id") String id) {
        visible(id);
        if (provisioner.isMigrating(id)) {
            throw Problem.of(Problem.Kind.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated").toException();
        }
        try {
            return RuntimeView.of(pauses.pause(id));
        } catch (dev.dockyard.runtime.IllegalTransitionException e) {
            throw Problem.of(Problem.Kind.RUNTIME_NOT_READY, "Runtime " + id + " is " + e.from()
                    + "; only a READY runtime can be paused").with("status", Json.createValue(e.from().name()))
                    .toException();
        } catch (dev.dockyard.backend.BackendException e) {
            throw Problem.of(Problem.Kind.BACKEND_FAILED, e.getMessage()).toException();
        }
    }

    /** Thaws a PAUSED runtime and answers once it is READY again (API.md); already READY is fine. */
    @POST
    @Path("{id}/resume")
    public JsonObject resume(@PathParam("id") String id) {
        visible(id);
        try {
            return RuntimeView.of(pauses.resume(id));
        } catch (dev.dockyard.runtime.IllegalTransitionException e) {
            throw Problem.of(Problem.Kind.RUNTIME_NOT_READY, "Runtime " + id + " is " + e.from()
                    + "; only a PAUSED runtime can be resumed").with("status", Json.createValue(e.from().name()))
                    .toException();
        } catch (dev.dockyard.backend.BackendException e) {
            throw Problem.of(Problem.Kind.BACKEND_FAILED, e.getMessage()).toException();
        }
    }

    /** The microagents of the runtime's repository (empty without one), read from the sandbox. */
    @GET
    @Path("{id}/microagents")
    public JsonObject microagents(@PathParam("id") String id) {
        SandboxRuntime runtime = ready(id);
        JsonArrayBuilder list = Json.createArrayBuilder();
        if (runtime.repository().isPresent()) {
            try {
                microagents.of(URI.create(runtime.executorUrl()), runtime.sessionKey(), runtime.repository().get())
                        .forEach(m -> list.add(m.toJson()));
            } catch (dev.dockyard.backend.BackendException e) {
                throw Problem.of(Problem.Kind.EXECUTOR_FAILED, e.getMessage()).toException();
            }
        }
        return Json.createObjectBuilder().add("microagents", list).build();
    }

    /** The runtime's audit trail, newest first (at most {@code limit}, default 100, up to 1000). */
    @GET
    @Path("{id}/audit")
    public JsonObject audit(@PathParam("id") String id, @QueryParam("limit") @jakarta.ws.rs.DefaultValue("100") int limit) {
        visible(id);
        return AuditView.of(auditTrail.ofRuntime(id, Math.max(1, Math.min(limit, 1000))));
    }

    /**
     * {@code text/event-stream} of the runtime's transitions: its history first, then each change
     * as it commits, one {@code status} event each; the stream ends after STOPPED or ERROR.
     */
    @GET
    @Path("{id}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@PathParam("id") String id, @Context jakarta.ws.rs.sse.SseEventSink sink,
                       @Context jakarta.ws.rs.sse.Sse sse) {
        visible(id);
        java.util.Set<String> sent = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.LinkedBlockingQueue<Object> live = new java.util.concurrent.LinkedBlockingQueue<>();
        AutoCloseable following = statusEvents.follow(id, live::add);
        AutoCloseable followingProgress = statusEvents.followProgress(id, live::add);
        java.util.function.Predicate<dev.dockyard.runtime.StatusChange> send = change -> {
            if (!sent.add(change.id())) {
                return false;
            }
            JsonObject data = Json.createObjectBuilder().add("status", change.status().name())
                    .add("message", change.message() == null ? "" : change.message())
                    .add("at", change.at().toString()).build();
            sink.send(sse.newEventBuilder().name("status").id(change.id()).mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(String.class, data.toString()).build());
            return !change.status().isLive();
        };
        java.util.List<dev.dockyard.runtime.StatusChange> history = runtimes.history(id);
        // the stream is served on a managed thread, not the request's: a follower may stay for hours
        streams.execute(() -> {
            boolean ended = false;
            try {
                for (dev.dockyard.runtime.StatusChange change : history) {
                    ended |= send.test(change);
                }
                while (!ended && !sink.isClosed()) {
                    Object next = live.poll(15, java.util.concurrent.TimeUnit.SECONDS);
                    if (next == null) {
                        // a comment keeps proxies from closing an idle stream and shows whether the client left
                        sink.send(sse.newEventBuilder().comment("waiting").build());
                    } else if (next instanceof dev.dockyard.runtime.RuntimeProgress progress) {
                        sink.send(sse.newEventBuilder().name("progress").mediaType(MediaType.APPLICATION_JSON_TYPE)
                                .data(String.class, Json.createObjectBuilder().add("build", progress.buildId())
                                        .add("step", progress.step()).add("steps", progress.steps())
                                        .add("line", progress.line()).build().toString()).build());
                    } else {
                        ended = send.test((dev.dockyard.runtime.StatusChange) next);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // the client went away mid-send
            } finally {
                try {
                    following.close();
                    followingProgress.close();
                } catch (Exception ignored) {
                    // nothing to release
                }
                sink.close();
            }
        });
    }

    /** Uploads a file (a .zip is unpacked) into the sandbox: multipart part {@code file}, as PROTOCOL.md's /upload_file. */
    @POST
    @Path("{id}/files")
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    public Response upload(@PathParam("id") String id, @QueryParam("destination") String destination,
                           @QueryParam("recursive") @jakarta.ws.rs.DefaultValue("false") boolean recursive,
                           @HeaderParam("Content-Type") String contentType, java.io.InputStream body) {
        SandboxRuntime runtime = ready(id);
        if (destination == null || !destination.startsWith("/")) {
            throw Problem.of(Problem.Kind.VALIDATION, "destination must be an absolute path in the sandbox")
                    .toException();
        }
        ExecutorClient.ExecutorAnswer answer;
        try {
            answer = executors.upload(URI.create(runtime.executorUrl()), runtime.sessionKey(), contentType, body,
                    destination, recursive);
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw Problem.of(Problem.Kind.EXECUTOR_FAILED, e.getMessage()).toException();
        }
        if (answer.status() == 200) {
            return Response.ok(answer.body(), MediaType.APPLICATION_JSON_TYPE).build();
        }
        if (answer.status() == 400) {
            throw Problem.of(Problem.Kind.VALIDATION, detail(answer.body())).toException();
        }
        throw Problem.of(Problem.Kind.EXECUTOR_FAILED, "The executor answered " + answer.status() + ": "
                + detail(answer.body())).toException();
    }

    /** Downloads a file or a whole tree from the sandbox as a zip stream. */
    @GET
    @Path("{id}/files")
    @Produces({"application/zip", "application/problem+json"})
    public Response download(@PathParam("id") String id, @QueryParam("path") String path) {
        SandboxRuntime runtime = ready(id);
        if (path == null || !path.startsWith("/")) {
            throw Problem.of(Problem.Kind.VALIDATION, "path must be an absolute path in the sandbox").toException();
        }
        java.net.http.HttpResponse<java.io.InputStream> answer;
        try {
            answer = executors.download(URI.create(runtime.executorUrl()), runtime.sessionKey(), path);
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw Problem.of(Problem.Kind.EXECUTOR_FAILED, e.getMessage()).toException();
        }
        if (answer.statusCode() != 200) {
            String text;
            try (java.io.InputStream in = answer.body()) {
                text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                text = "";
            }
            Problem.Kind kind = switch (answer.statusCode()) {
                case 404 -> Problem.Kind.NOT_FOUND;
                case 400 -> Problem.Kind.VALIDATION;
                default -> Problem.Kind.EXECUTOR_FAILED;
            };
            throw Problem.of(kind, detail(text)).toException();
        }
        jakarta.ws.rs.core.StreamingOutput zip = out -> {
            try (java.io.InputStream in = answer.body()) {
                in.transferTo(out);
            }
        };
        return Response.ok(zip, "application/zip").header("Content-Disposition",
                answer.headers().firstValue("Content-Disposition").orElse("attachment")).build();
    }

    private SandboxRuntime ready(String id) {
        return requireReady(visible(id));
    }

    private SandboxRuntime requireReady(SandboxRuntime runtime) {
        String id = runtime.id();
        if (provisioner.isMigrating(id)) {
            throw Problem.of(Problem.Kind.RUNTIME_MIGRATING, "Runtime " + id + " is being migrated to another node; "
                    + "its workspace is being copied, so it takes no actions until the move ends").toException();
        }
        if (runtime.status() != RuntimeStatus.READY || runtime.executorUrl() == null) {
            throw Problem.of(Problem.Kind.RUNTIME_NOT_READY, "Runtime " + id + " is " + runtime.status()
                    + "; this needs READY").with("status", Json.createValue(runtime.status().name())).toException();
        }
        return runtime;
    }

    private static String detail(String body) {
        try (var reader = Json.createReader(new java.io.StringReader(body))) {
            return reader.readObject().getString("detail", body);
        } catch (RuntimeException e) {
            return body.length() > 500 ? body.substring(0, 500) : body;
        }
    }

    /** The runtime if the caller may see it; someone else's answers 404 exactly like an unknown id. */
    private SandboxRuntime visible(String id) {
        return runtimes.find(id).filter(r -> caller.canSee(r.userId()))
                .orElseThrow(() -> Problem.of(Problem.Kind.NOT_FOUND, "No runtime " + id).toException());
    }
}
