package dev.dockyard.api;

import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
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
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.time.Duration;
import java.util.Set;

/**
 * {@code POST /runtimes/{id}/fork {"conversationId"}} (API.md): a snapshot of the runtime and a new
 * runtime for that conversation started from it, answered like a provision (202, or 201 once READY
 * with {@code Prefer: wait=N}).
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

    @Context
    UriInfo uri;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public void fork(@PathParam("id") String id, JsonObject body, @HeaderParam("Prefer") String prefer,
                     @Suspended AsyncResponse async) {
        int wait = RuntimeResource.preferredWait(prefer);
        backstops.guard(async, Duration.ofSeconds(wait + 60L), () -> Problem.of(Problem.Kind.SERVICE_UNAVAILABLE,
                "No answer within " + (wait + 60) + " s").toException());
        try {
            SandboxRuntime source = RuntimeSnapshotResource.visible(runtimes, caller, id);
            if (body != null) {
                JsonFields.requireOnly(body, FIELDS, "");
            }
            String conversationId = SafeIds.require(RuntimeSnapshotResource.string(body, "conversationId"),
                    "conversationId");
            URI base = uri.getBaseUri();
            SandboxRuntime fork = RuntimeResource.refusalsAnswered(() -> lifecycle.fork(source, conversationId,
                    caller.userId(), caller.role()));
            lifecycle.settled(fork, Duration.ofSeconds(wait)).whenComplete((now, error) -> {
                if (error != null) {
                    async.resume(error);
                    return;
                }
                Response.Status status = now.status() == RuntimeStatus.READY ? Response.Status.CREATED
                        : Response.Status.ACCEPTED;
                async.resume(Response.status(status).location(UriBuilder.fromUri(base).path("runtimes")
                        .path(now.id()).build()).entity(RuntimeView.of(now)).build());
            });
        } catch (RuntimeException e) {
            async.resume(e);
        }
    }
}
