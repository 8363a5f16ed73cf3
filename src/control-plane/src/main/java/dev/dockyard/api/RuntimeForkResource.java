package dev.dockyard.api;

import dev.dockyard.application.idempotency.IdempotentRequests;
import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.time.Duration;
import java.util.Set;

/**
 * {@code POST /runtimes/{id}/fork {"conversationId"}} (API.md): a snapshot of the runtime and a new
 * runtime for that conversation started from it, answered like a provision (202, or 201 once READY
 * with {@code Prefer: wait=N}; with an {@code Idempotency-Key}, a retry gets the first answer).
 */
@Path("runtimes/{id}/fork")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RuntimeForkResource {

    /** The members a fork body takes. */
    static final Set<String> FIELDS = Set.of("conversationId");

    @Inject
    Caller caller;

    @Inject
    RuntimeQueries runtimes;

    @Inject
    RuntimeService lifecycle;

    @Inject
    AnswerBackstops backstops;

    @Inject
    IdempotentRequests idempotent;

    @Context
    UriInfo uri;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public void fork(@PathParam("id") String id, JsonObject body, @HeaderParam("Prefer") String prefer,
                     @HeaderParam(RuntimeResource.IDEMPOTENCY_HEADER) String idempotencyKey,
                     @Suspended AsyncResponse async) {
        int wait = RuntimeResource.preferredWait(prefer);
        int longest = Math.max(wait, (int) IdempotentRequests.REPLAY_WAIT.toSeconds());
        backstops.guard(async, Duration.ofSeconds(longest + 60L), () -> Problem.of(Problem.Kind.SERVICE_UNAVAILABLE,
                "No answer within " + (longest + 60) + " s").toException());
        try {
            SandboxRuntime source = RuntimeSnapshotResource.visible(runtimes, caller, id);
            if (body != null) {
                JsonFields.requireOnly(body, FIELDS, "");
            }
            String conversationId = SafeIds.require(RuntimeSnapshotResource.string(body, "conversationId"),
                    "conversationId");
            // read now: the request's scope is gone when a wait ends
            String userId = caller.userId();
            Role role = caller.role();
            URI base = uri.getBaseUri();
            // a retry after a lost answer gets that answer, not a second snapshot and a 409
            ProvisionAnswers.once(async, idempotent, userId, idempotencyKey, "fork " + id + " " + body,
                    () -> ProvisionAnswers.answered(() -> ProvisionAnswers.accepted(lifecycle,
                            ProvisionAnswers.refusalsAnswered(() -> lifecycle.fork(source, conversationId, userId,
                                    role)), wait, base)), base);
        } catch (RuntimeException e) {
            async.resume(e);
        }
    }
}
