package dev.dockyard.executor.api;

import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;

/** PROTOCOL.md's {@code /upload_file}, {@code /download_files} and {@code /list_files}. */
@Path("/")
public class FileTransferResource {

    private final ExecutorLifecycle lifecycle;

    FileTransferResource(ExecutorLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @POST
    @Path("upload_file")
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    @Produces(MediaType.APPLICATION_JSON)
    public Response upload(@HeaderParam("Content-Type") String contentType, InputStream body,
                           @QueryParam("destination") String destination,
                           @DefaultValue("false") @QueryParam("recursive") boolean recursive) {
        return Replies.of(lifecycle.requests().upload(contentType, body, destination, recursive));
    }

    @GET
    @Path("download_files")
    public Response download(@QueryParam("path") String path) {
        return Replies.of(lifecycle.requests().download(path));
    }

    @POST
    @Path("list_files")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response list(JsonObject request) {
        return Replies.of(lifecycle.requests().list(request));
    }
}
