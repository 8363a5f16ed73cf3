package dev.dockyard.api;

import dev.dockyard.application.workspaces.Workspaces;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.workspace.KeptWorkspace;
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

/** Kept workspaces (API.md): the caller's own, all for admins; others' answer 404. */
@Path("workspaces")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class WorkspaceResource {

    @Inject
    Caller caller;

    @Inject
    Workspaces workspaces;

    @GET
    public JsonObject list() {
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        for (KeptWorkspace w : workspaces.list(caller.userId(), caller.isAdmin())) {
            items.add(WorkspaceView.of(w, workspaces.inUse(w)));
        }
        return Jsonp.createObjectBuilder().add("workspaces", items).build();
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        KeptWorkspace w = workspaces.visible(id, caller.userId(), caller.isAdmin());
        return WorkspaceView.of(w, workspaces.inUse(w));
    }

    @DELETE
    @Path("{id}")
    public Response delete(@PathParam("id") String id) {
        workspaces.delete(id, caller.userId(), caller.isAdmin());
        return Response.noContent().build();
    }
}
