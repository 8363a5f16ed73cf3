package dev.dockyard.e2b;

import dev.dockyard.api.Caller;
import dev.dockyard.api.JsonFields;
import dev.dockyard.application.e2b.E2bSandboxes;
import dev.dockyard.application.e2b.E2bSnapshots;
import dev.dockyard.application.e2b.Page;
import dev.dockyard.application.e2b.PageToken;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.workspace.Snapshot;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Set;

/**
 * E2B's snapshot routes on Dockyard's snapshots (files, not memory; see
 * {@link E2bSnapshots}): take one of a sandbox, list them, delete one ({@code DELETE
 * /templates/{id}}: a snapshot is a template to E2B). {@code {"snapshotID", "names"}} is E2B's
 * snapshot object; a snapshot id is a {@code templateID} for a create.
 */
@Path("/")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class SnapshotResource {

    static final Set<String> FIELDS = Set.of("name");

    @Inject
    Caller caller;

    @Inject
    E2bSandboxes sandboxes;

    @Inject
    E2bSnapshots snapshots;

    @POST
    @Path("sandboxes/{sandboxID}/snapshots")
    public Response snapshot(@PathParam("sandboxID") String sandboxId, JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, FIELDS, "");
        String name = JsonFields.string(b, "name", null, "name");
        Snapshot snapshot = snapshots.capture(SandboxResource.visible(sandboxes, caller, sandboxId), name);
        return Response.status(Response.Status.CREATED).entity(view(snapshot)).build();
    }

    @GET
    @Path("snapshots")
    public Response list(@QueryParam("sandboxID") String sandboxId, @QueryParam("name") String name,
                         @QueryParam("limit") String limit, @QueryParam("nextToken") String nextToken) {
        PageToken after = nextToken == null || nextToken.isEmpty() ? null : PageToken.decode(nextToken)
                .orElseThrow(() -> NewSandboxReader.invalid("nextToken is not a token this list handed out"));
        Page<Snapshot> page = snapshots.list(caller.userId(), caller.isAdmin(), blankIsNull(sandboxId),
                blankIsNull(name), SandboxQueryReader.limit(limit), after);
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        page.items().forEach(s -> items.add(view(s)));
        Response.ResponseBuilder answer = Response.ok(items.build().toString());
        if (page.next() != null) {
            answer.header(SandboxResource.NEXT_TOKEN, page.next().encode());
        }
        return answer.build();
    }

    /** A snapshot, which E2B deletes as a template: 204; another user's or an unknown one 404. */
    @DELETE
    @Path("templates/{templateID}")
    public Response delete(@PathParam("templateID") String snapshotId) {
        snapshots.delete(snapshotId, caller.userId(), caller.isAdmin());
        return Response.noContent().build();
    }

    static JsonObject view(Snapshot snapshot) {
        return Jsonp.createObjectBuilder().add("snapshotID", snapshot.id())
                .add("names", Jsonp.createArrayBuilder().add(snapshot.name())).build();
    }

    private static String blankIsNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
