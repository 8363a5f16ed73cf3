package dev.dockyard.api;

import dev.dockyard.application.images.ImageAccess;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ImageBuildException;
import dev.dockyard.backend.Labels;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.images.BuildScriptPolicy;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.images.ImageBuild;
import dev.dockyard.images.RuntimeImages;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.placement.NodeAccess;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Set;

/**
 * Runtime images: what there is, whether an image exists, and builds — started here or by
 * provisioning a runtime whose image is a base (both share one build per image and node).
 */
@Path("images")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ImageResource {

    /** The members an image build body takes. */
    static final Set<String> BUILD_FIELDS = Set.of("baseImage", "extraDeps", "force", "node");

    @Inject
    RuntimeImages images;

    @Inject
    BackendNodes nodes;

    @Inject
    Caller caller;

    @Inject
    ImageAccess access;

    @Inject
    NodeAccess nodeAccess;

    /** Builds run the caller's scripts as root in a build container: an operator's tool, not a user's. */
    private void requireAdmin() {
        if (!caller.isAdmin()) {
            throw Problem.of(Problem.Kind.FORBIDDEN, "Only admins start or read image builds; a runtime on a base "
                    + "image builds its runtime image itself (progress on its event stream)").toException();
        }
    }

    @Context
    UriInfo uri;

    /** The runtime images on a node, with their tags. */
    @GET
    public JsonObject list(@QueryParam("node") String node) {
        JsonArrayBuilder list = Jsonp.createArrayBuilder();
        String on = known(node);
        for (RuntimeImageBuilder.ImageInfo image : images.list(on)) {
            // other users' builds are tagged in the same repository: theirs, not listed
            if (access.mayUse(on, image, caller.userId(), caller.isAdmin())) {
                list.add(view(image));
            }
        }
        return Jsonp.createObjectBuilder().add("node", known(node)).add("images", list).build();
    }

    @GET
    @Path("exists")
    public JsonObject exists(@QueryParam("image") String image, @QueryParam("node") String node) {
        ProvisionRequestReader.requireImage(image, "image");
        // an image the caller may not use (or named by an id prefix) exists no more than an absent one
        var found = access.usable(known(node), image, caller.userId(), caller.isAdmin());
        JsonObjectBuilder answer = Jsonp.createObjectBuilder().add("image", image).add("node", known(node))
                .add("exists", found.isPresent());
        found.ifPresent(i -> answer.add("runtimeImage", "true".equals(i.labels().get(Labels.RUNTIME_IMAGE)))
                .add("id", i.id()).add("sizeBytes", i.sizeBytes()));
        return answer.build();
    }

    /**
     * {@code {"baseImage", "extraDeps": {"apt": [...], "script"}, "force", "node"}} → 202 with the
     * build (already SUCCEEDED, path CACHED, when the runtime image exists and force is false).
     */
    @POST
    @Path("builds")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response build(JsonObject body) {
        requireAdmin();
        if (body == null) {
            throw Problem.of(Problem.Kind.VALIDATION, "A JSON body is required, at least {\"baseImage\": \"...\"}")
                    .toException();
        }
        JsonFields.requireOnly(body, BUILD_FIELDS, "");
        JsonValue base = body.get("baseImage");
        if (!(base instanceof JsonString baseName)) {
            throw Problem.of(Problem.Kind.VALIDATION, "baseImage is required (a string)").toException();
        }
        ProvisionRequestReader.requireImage(baseName.getString(), "baseImage");
        ExtraDependencies extra = ProvisionRequestReader.extraDependencies(body, "extraDeps");
        BuildScriptPolicy.requireAllowed(caller.isAdmin(), extra,
                reason -> Problem.of(Problem.Kind.FORBIDDEN, reason).toException());
        JsonValue force = body.get("force");
        if (force != null && force.getValueType() != JsonValue.ValueType.NULL && force != JsonValue.TRUE
                && force != JsonValue.FALSE) {
            throw Problem.of(Problem.Kind.VALIDATION, "force must be a boolean").toException();
        }
        String node = known(JsonFields.string(body, "node", null, "node"));
        ImageBuild build;
        try {
            build = images.submit(node, baseName.getString(), extra, force == JsonValue.TRUE);
        } catch (ImageBuildException e) {
            throw Problem.of(Problem.Kind.VALIDATION, e.getMessage()).toException();
        }
        return Response.accepted(view(build))
                .location(uri.getBaseUriBuilder().path("images/builds").path(build.id()).build()).build();
    }

    @GET
    @Path("builds/{id}")
    public JsonObject build(@PathParam("id") String id) {
        requireAdmin();
        return images.build(id).map(ImageResource::view).orElseThrow(() -> Problem.of(Problem.Kind.NOT_FOUND,
                "No image build " + id + " (builds are remembered until the control plane restarts)").toException());
    }

    /** The node named (the default for null), or a 400 naming the configured ones. */
    private String known(String node) {
        try {
            nodes.images(node);
        } catch (BackendNodes.UnknownNodeException e) {
            throw Problem.of(Problem.Kind.VALIDATION, e.getMessage()).toException();
        }
        String named = nodes.named(node);
        // a node the caller may not place runtimes on is not theirs to look into either (403)
        nodeAccess.require(named, caller.userId(), caller.role());
        return named;
    }

    private static JsonObject view(RuntimeImageBuilder.ImageInfo image) {
        JsonArrayBuilder tags = Jsonp.createArrayBuilder();
        image.tags().stream().sorted().forEach(tags::add);
        JsonObjectBuilder b = Jsonp.createObjectBuilder().add("id", image.id()).add("tags", tags)
                .add("sizeBytes", image.sizeBytes());
        String base = image.labels().get(Labels.BASE_IMAGE);
        if (base != null) {
            b.add("baseImage", base);
        }
        return b.build();
    }

    static JsonObject view(ImageBuild build) {
        JsonObjectBuilder b = Jsonp.createObjectBuilder()
                .add("id", build.id())
                .add("node", build.node())
                .add("baseImage", build.baseImage())
                .add("status", build.status().name())
                .add("image", build.tags().image(build.tags().source()))
                .add("tags", Jsonp.createObjectBuilder()
                        .add("versioned", build.tags().image(build.tags().versioned()))
                        .add("lock", build.tags().image(build.tags().lock()))
                        .add("source", build.tags().image(build.tags().source())))
                .add("startedAt", build.startedAt().toString())
                .add("step", build.step())
                .add("steps", build.steps());
        if (build.path() != null) {
            b.add("path", build.path().name());
        }
        if (build.finishedAt() != null) {
            b.add("finishedAt", build.finishedAt().toString())
                    .add("durationMs", build.finishedAt().toEpochMilli() - build.startedAt().toEpochMilli());
        }
        if (build.error() != null) {
            b.add("error", build.error());
        }
        JsonArrayBuilder log = Jsonp.createArrayBuilder();
        build.logTail().forEach(log::add);
        return b.add("logTail", log).build();
    }
}
