package dev.dockyard.runtimeapi;

import dev.dockyard.api.ApiDocumentFilter;
import dev.dockyard.api.Caller;
import dev.dockyard.api.EgressRequestReader;
import dev.dockyard.api.JsonFields;
import dev.dockyard.api.Problem;
import dev.dockyard.api.SafeIds;
import dev.dockyard.application.idempotency.IdempotentRequests;
import dev.dockyard.application.remote.ContextBuilds;
import dev.dockyard.application.remote.RemoteRuntimes;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ConversationBusyException;
import dev.dockyard.tenancy.ApiKeyRecord;
import dev.dockyard.tenancy.QuotaExceededException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityPart;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * OpenHands' Remote Runtime API (see the package). Lifecycle calls take {@code {"runtime_id"}}
 * and answer the runtime object; ids the caller does not own are unknown (404), like ids that
 * never existed.
 */
@Path("/")
@Tag(name = ApiDocumentFilter.RUNTIME_API_TAG)
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RemoteRuntimeResource {

    @Inject
    Caller caller;

    @Inject
    RemoteRuntimes runtimes;

    @Inject
    ContextBuilds builds;

    @Inject
    IdempotentRequests idempotent;

    static final String IDEMPOTENCY_HEADER = "Idempotency-Key";

    @Inject
    DockyardConfig config;

    @Context
    UriInfo uri;

    /**
     * Starts the session's runtime. With an {@code Idempotency-Key} (Dockyard's extension, as on
     * /api/v1) a retry with the same key and body answers the runtime the first one started, as it
     * is now, even when the first answer was lost on its way: a remote node's retried start never
     * makes a second sandbox.
     */
    @POST
    @Path("start")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject start(JsonObject body, @HeaderParam(IDEMPOTENCY_HEADER) String idempotencyKey) {
        String base = base();
        if (idempotencyKey == null) {
            return RemoteRuntimeView.of(started(body, base), base);
        }
        if (idempotencyKey.isBlank() || idempotencyKey.length() > 200) {
            throw Problem.of(Problem.Kind.VALIDATION, IDEMPOTENCY_HEADER + " must be 1 to 200 characters").toException();
        }
        String userId = caller.userId();
        // only the runtime's id is stored: the answer (its key among it) is read again on a replay
        CompletionStage<IdempotentRequests.Outcome<SandboxRuntime>> outcome = idempotent.once(
                userId + "/runtime-api/start/" + idempotencyKey, ApiKeyRecord.hash(body == null ? "" : body.toString()),
                () -> CompletableFuture.completedFuture(started(body, base)),
                runtime -> new IdempotentRequests.StoredAnswer(200, runtime.id()));
        IdempotentRequests.Outcome<SandboxRuntime> answered;
        try {
            answered = outcome.toCompletableFuture().get(IdempotentRequests.REPLAY_WAIT.toSeconds() + 5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw Problem.of(Problem.Kind.CONFLICT, "The first request with this Idempotency-Key is still being "
                    + "answered; retry later").toException();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the first answer", e);
        }
        SandboxRuntime runtime = answered.isReplay() ? owned(answered.replayed().body()) : answered.first();
        return RemoteRuntimeView.of(runtime, base);
    }

    private SandboxRuntime started(JsonObject body, String base) {
        try {
            return runtimes.start(caller.userId(), caller.role(), StartRequestReader.read(body, base)
                    .withEgress(EgressRequestReader.read(body, config, EgressRequestReader.SYSTEM)));
        } catch (QuotaExceededException e) {
            throw Problem.of(Problem.Kind.QUOTA_EXCEEDED, e.getMessage()).toException();
        } catch (ConversationBusyException e) {
            return e.existing();
        }
    }

    @GET
    @Path("sessions/batch")
    public String batch(@QueryParam("ids") List<String> ids) {
        JsonArrayBuilder list = Jsonp.createArrayBuilder();
        Set<String> distinct = new LinkedHashSet<>(ids);
        String base = base();
        for (String id : distinct) {
            runtimes.session(caller.userId(), id).ifPresent(r -> list.add(RemoteRuntimeView.of(r, base)));
        }
        // a bare JSON array: the app server iterates the body itself
        return list.build().toString();
    }

    @GET
    @Path("sessions/{sessionId}")
    public JsonObject session(@PathParam("sessionId") String sessionId) {
        return RemoteRuntimeView.of(runtimes.session(caller.userId(), sessionId)
                .orElseThrow(() -> notFound("no runtime for session " + sessionId)), base());
    }

    @GET
    @Path("list")
    public JsonObject list() {
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        List<SandboxRuntime> live = runtimes.live(caller.userId());
        String base = base();
        live.forEach(r -> items.add(RemoteRuntimeView.of(r, base)));
        return Jsonp.createObjectBuilder().add("runtimes", items).add("total", live.size()).build();
    }

    @GET
    @Path("runtime/{runtimeId}")
    public JsonObject runtime(@PathParam("runtimeId") String runtimeId) {
        return RemoteRuntimeView.of(owned(runtimeId), base());
    }

    @POST
    @Path("pause")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject pause(JsonObject body) {
        return RemoteRuntimeView.of(runtimes.pause(owned(runtimeId(body))), base());
    }

    @POST
    @Path("resume")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject resume(JsonObject body) {
        return RemoteRuntimeView.of(runtimes.resume(owned(runtimeId(body))), base());
    }

    @POST
    @Path("stop")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject stop(JsonObject body) {
        return RemoteRuntimeView.of(runtimes.stop(owned(runtimeId(body))), base());
    }

    @GET
    @Path("registry_prefix")
    public JsonObject registryPrefix() {
        return Jsonp.createObjectBuilder().add("registry_prefix", builds.registryPrefix()).build();
    }

    @GET
    @Path("image_exists")
    public JsonObject imageExists(@QueryParam("image") String image) {
        if (image == null || image.isBlank()) {
            throw Problem.of(Problem.Kind.VALIDATION, "the image query parameter is required").toException();
        }
        Optional<RuntimeImageBuilder.ImageInfo> found = runtimes.image(image.strip(), caller.userId(),
                caller.isAdmin());
        JsonObjectBuilder answer = Jsonp.createObjectBuilder().add("exists", found.isPresent());
        found.ifPresent(i -> answer.add("image", Jsonp.createObjectBuilder().add("id", i.id())
                .add("image_size_bytes", i.sizeBytes()).addNull("upload_time")));
        return answer.build();
    }

    /**
     * OpenHands' RemoteRuntimeBuilder: multipart {@code context} (base64 text of a tar.gz with a
     * Dockerfile), {@code target_image} and repeated {@code tags}. Answers {@code build_id} at once.
     */
    @POST
    @Path("build")
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    public JsonObject build(List<EntityPart> parts) {
        java.nio.file.Path context = null; // jakarta.ws.rs.Path is this class's annotation
        String target = null;
        List<String> tags = new ArrayList<>();
        try {
            for (EntityPart part : parts) {
                switch (part.getName()) {
                    case "context" -> context = BuildContextUpload.decode(part.getContent());
                    case "target_image" -> target = part.getContent(String.class);
                    case "tags" -> tags.add(part.getContent(String.class));
                    default -> {
                        // other form fields: none OpenHands sends
                    }
                }
            }
            if (context == null || target == null) {
                throw Problem.of(Problem.Kind.VALIDATION, "a build needs the parts context and target_image")
                        .toException();
            }
            ContextBuilds.Build build = builds.submit(caller.userId(), caller.isAdmin(), context, target.strip(),
                    tags.stream().map(String::strip).toList());
            context = null; // the build owns it now
            return Jsonp.createObjectBuilder().add("build_id", build.id()).build();
        } catch (IOException e) {
            throw Problem.of(Problem.Kind.VALIDATION, "the build context could not be read: " + e.getMessage())
                    .toException();
        } finally {
            BuildContextUpload.delete(context);
        }
    }

    @GET
    @Path("build_status")
    public JsonObject buildStatus(@QueryParam("build_id") String buildId) {
        ContextBuilds.Build build = builds.find(caller.userId(), caller.isAdmin(), buildId == null ? "" : buildId)
                .orElseThrow(() -> notFound("no build " + buildId));
        JsonObjectBuilder answer = Jsonp.createObjectBuilder().add("build_id", build.id()).add("status", build.status())
                .add("image", build.image());
        if (build.error() == null) {
            answer.addNull("error");
        } else {
            answer.add("error", build.error());
        }
        return answer.build();
    }

    private SandboxRuntime owned(String runtimeId) {
        return runtimes.runtime(caller.userId(), caller.isAdmin(), runtimeId)
                .orElseThrow(() -> notFound("no runtime " + runtimeId));
    }

    /** The members a /pause, /resume or /stop body takes. */
    static final Set<String> RUNTIME_ID_FIELDS = Set.of("runtime_id");

    private static String runtimeId(JsonObject body) {
        if (body == null || !(body.get("runtime_id") instanceof JsonString id) || id.getString().isBlank()) {
            throw Problem.of(Problem.Kind.VALIDATION, "runtime_id is required").toException();
        }
        JsonFields.requireOnly(body, RUNTIME_ID_FIELDS, "");
        return SafeIds.require(id.getString(), "runtime_id");
    }

    /**
     * The public base of service URLs (see ServiceUrls): the services' own port on the host the
     * client reached the API at, unless dockyard.proxy.public-url says otherwise.
     */
    private String base() {
        URI request = uri.getBaseUri();
        return config.servicesBase(request.getScheme(), request.getHost()); // an IPv6 host comes in brackets
    }

    private static Problem.ProblemException notFound(String detail) {
        return Problem.of(Problem.Kind.NOT_FOUND, detail).toException();
    }
}
