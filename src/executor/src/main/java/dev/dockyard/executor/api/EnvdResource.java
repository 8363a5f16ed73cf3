package dev.dockyard.executor.api;

import dev.dockyard.executor.envd.EnvdRequests;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;

/**
 * E2B's envd on Liberty (docs/PROTOCOL.md, "envd: E2B's in-sandbox protocol"): the Connect RPCs of
 * {@code process.Process} and {@code filesystem.Filesystem}, {@code /health} and {@code /files},
 * each handed as it came to the executor core's {@link EnvdRequests}, as the embedded server's
 * router does. Nothing is parsed here: the RPCs take any content type (the core reads the JSON or
 * the envelope), and a stream's envelopes are flushed one by one through {@code StreamingOutput}.
 */
@Path("/")
public class EnvdResource {

    private final ExecutorLifecycle lifecycle;

    EnvdResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Path("{service: process\\.Process|filesystem\\.Filesystem}/{method}")
    public Response rpc(@PathParam("service") String service, @PathParam("method") String method,
                        @Context HttpHeaders headers, @Context HttpServletResponse servlet, InputStream body) {
        return Replies.of(lifecycle.requests().envd().rpc(service + "/" + method, headers::getHeaderString, body),
                servlet);
    }

    @GET
    @Path("health")
    public Response health() {
        return Replies.of(lifecycle.requests().envd().health());
    }

    @GET
    @Path("files")
    public Response download(@QueryParam("path") String path, @QueryParam("username") String username) {
        return Replies.of(lifecycle.requests().envd().download(path, username));
    }

    @POST
    @Path("files")
    public Response upload(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                           @HeaderParam(HttpHeaders.CONTENT_ENCODING) String contentEncoding,
                           @Context HttpHeaders headers, InputStream body,
                           @QueryParam("path") String path, @QueryParam("username") String username) {
        return Replies.of(lifecycle.requests().envd().upload(contentType, contentEncoding,
                headers.getRequestHeaders(), body, path, username));
    }
}
