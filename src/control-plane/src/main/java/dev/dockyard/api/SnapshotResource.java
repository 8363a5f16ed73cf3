package dev.dockyard.api;

import dev.dockyard.application.workspaces.Snapshots;
import dev.dockyard.jsonp.Jsonp;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Snapshots (API.md): the caller's own, all for admins; others' answer 404. */
@Path("snapshots")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class SnapshotResource {

    @Inject
    Caller caller;

    @Inject
    Snapshots snapshots;

    @GET
    public JsonObject list() {
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        snapshots.list(caller.userId(), caller.isAdmin()).forEach(s -> items.add(WorkspaceView.of(s)));
        return Jsonp.createObjectBuilder().add("snapshots", items).build();
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        return WorkspaceView.of(snapshots.visible(id, caller.userId(), caller.isAdmin()));
    }

    @DELETE
    @Path("{id}")
    public Response delete(@PathParam("id") String id) {
        snapshots.delete(id, caller.userId(), caller.isAdmin());
        return Response.noContent().build();
    }
}
