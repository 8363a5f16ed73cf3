package dev.dockyard.api;

import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.workspace.Snapshot;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.core.UriInfo;
import java.util.Set;

/**
 * A runtime's snapshots (API.md): {@code POST /runtimes/{id}/snapshots {"name"}} → 201 with the
 * snapshot. Its own class with the full template: a shorter {@code runtimes/{id}} would take every
 * path under a runtime away from {@link RuntimeResource}.
 */
@Path("runtimes/{id}/snapshots")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RuntimeSnapshotResource {

    /** The members a snapshot body takes. */
    static final Set<String> FIELDS = Set.of("name");
    private static final int MAX_NAME = 200;

    @Inject
    Caller caller;

    @Inject
    RuntimeQueries runtimes;

    @Inject
    Snapshots snapshots;

    @Context
    UriInfo uri;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response snapshot(@PathParam("id") String id, JsonObject body) {
        SandboxRuntime runtime = visible(runtimes, caller, id);
        if (body != null) {
            JsonFields.requireOnly(body, FIELDS, "");
        }
        String name = SafeIds.requireText(string(body, "name"), "name", MAX_NAME);
        Snapshot snapshot = snapshots.capture(runtime, name);
        return Response.created(UriBuilder.fromUri(uri.getBaseUri()).path("snapshots").path(snapshot.id()).build())
                .entity(WorkspaceView.of(snapshot)).build();
    }

    /** The runtime if the caller may see it; someone else's answers 404 exactly like an unknown id. */
    static SandboxRuntime visible(RuntimeQueries runtimes, Caller caller, String id) {
        return runtimes.find(id).filter(r -> caller.canSee(r.userId()))
                .orElseThrow(() -> Problem.of(Problem.Kind.NOT_FOUND, "No runtime " + id).toException());
    }

    static String string(JsonObject body, String key) {
        JsonValue value = body == null ? null : body.get(key);
        if (value instanceof JsonString s && !s.getString().isBlank()) {
            return s.getString();
        }
        throw Problem.of(Problem.Kind.VALIDATION, key + " is required (a string), e.g. {\"" + key + "\": \"...\"}")
                .toException();
    }
}
