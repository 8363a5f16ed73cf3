package dev.dockyard.executor.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Liveness, readiness (a Dockyard addition: 200 only when the shell and every requested plugin are
 * up; the control plane waits for it) and the OpenHands {@code /server_info}.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    private final ExecutorLifecycle lifecycle;

    HealthResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @GET
    @Path("alive")
    public Response alive() {
        return Replies.of(lifecycle.requests().alive());
    }

    @GET
    @Path("ready")
    public Response ready() {
        return Replies.of(lifecycle.requests().ready());
    }

    @GET
    @Path("server_info")
    public Response serverInfo() {
        return Replies.of(lifecycle.requests().serverInfo());
    }
}
