package dev.dockyard.executor.api;

import dev.dockyard.executor.files.FileTransfer;
import dev.dockyard.executor.files.MultipartFile;
import dev.dockyard.executor.files.PathGuard;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;

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
        if (!lifecycle.initialized()) {
            return ActionResource.detail(Response.Status.SERVICE_UNAVAILABLE, "The executor is not initialized");
        }
        FileTransfer transfer = lifecycle.executor().transfer();
        String filename;
        try {
            java.nio.file.Path dir = transfer.destination(destination, lifecycle.executor().workingDirectory());
            MultipartFile file = MultipartFile.find(contentType, body, "file");
            filename = file.filename();
            transfer.upload(dir, filename, file.content(), recursive);
        } catch (IllegalArgumentException | PathGuard.PathRefusedException e) {
            return ActionResource.detail(Response.Status.BAD_REQUEST, e.getMessage());
        } catch (IOException e) {
            return ActionResource.detail(Response.Status.INTERNAL_SERVER_ERROR, "Upload failed: " + e.getMessage());
        }
        return Response.ok(Json.createObjectBuilder().add("filename", filename).add("destination", destination)
                .add("recursive", recursive).build()).build();
    }

    @GET
    @Path("download_files")
    public Response download(@QueryParam("path") String path) {
        if (!lifecycle.initialized()) {
            return ActionResource.detail(Response.Status.SERVICE_UNAVAILABLE, "The executor is not initialized");
        }
        if (path == null || !path.startsWith("/")) {
            return ActionResource.detail(Response.Status.BAD_REQUEST, "Path must be an absolute path");
        }
        java.nio.file.Path target;
        try {
            target = lifecycle.executor().guard().check(path, lifecycle.executor().workingDirectory());
        } catch (PathGuard.PathRefusedException e) {
            return ActionResource.detail(Response.Status.BAD_REQUEST, e.getMessage());
        }
        if (!Files.exists(target)) {
            return ActionResource.detail(Response.Status.NOT_FOUND, "File not found");
        }
        FileTransfer transfer = lifecycle.executor().transfer();
        StreamingOutput zip = out -> transfer.download(target, out);
        String name = target.getFileName() == null ? "root" : target.getFileName().toString();
        return Response.ok(zip, "application/zip")
                .header("Content-Disposition", "attachment; filename=\"" + name.replace("\"", "") + ".zip\"").build();
    }

    @POST
    @Path("list_files")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response list(JsonObject request) {
        if (!lifecycle.initialized()) {
            return ActionResource.detail(Response.Status.SERVICE_UNAVAILABLE, "The executor is not initialized");
        }
        JsonArrayBuilder names = Json.createArrayBuilder();
        try {
            java.nio.file.Path cwd = lifecycle.executor().workingDirectory();
            String requested = request == null ? null : request.getString("path", null);
            java.nio.file.Path dir = requested == null ? cwd : lifecycle.executor().guard().check(requested, cwd);
            lifecycle.executor().transfer().list(dir).forEach(names::add);
        } catch (PathGuard.PathRefusedException | IOException e) {
            // OpenHands answers an empty list for anything it cannot list
        }
        return Response.ok(names.build()).build();
    }
}
