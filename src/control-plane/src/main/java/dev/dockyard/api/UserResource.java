package dev.dockyard.api;

import dev.dockyard.application.users.UserAdministration;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.KeyKind;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

/** Users and their keys (admins only), and quota overrides. */
@Path("users")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class UserResource {

    /** The members a new user's body takes. */
    static final Set<String> USER_FIELDS = Set.of("userId", "role");
    /** The members a quota body takes; each null (or absent) for the default. */
    static final Set<String> QUOTA_FIELDS = Set.of("maxRuntimes", "maxCpus", "maxMemoryMb", "maxSnapshots",
            "maxSnapshotMb");

    @Inject
    Caller caller;

    @Inject
    Accounts accounts;

    @Inject
    UserAdministration users;

    @Inject
    InputLimits limits;

    /** Every user with their quota overrides and what their live runtimes use (admins only). */
    @GET
    public JsonObject list() {
        requireAdmin();
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        users.list().forEach(u -> items.add(Jsonp.createObjectBuilder(view(u.account())).add("usage",
                Jsonp.createObjectBuilder().add("runtimes", u.runtimes()).add("cpus", u.cpus()).add("memoryMb", u.memoryMb()))));
        return Jsonp.createObjectBuilder().add("users", items).build();
    }

    /**
     * Rotates the user's key (admins for anyone, a user for themself): 201 {@code {"userId", "apiKey"}},
     * the new key shown this once; every older key of the user is refused from now on. An optional
     * body {@code {"kind": "e2b"}} asks for a key as E2B's SDKs check it ({@code e2b_} and hex digits;
     * {@code "dockyard"}, the default, is Dockyard's {@code dy_} key).
     */
    @POST
    @Path("{userId}/keys")
    @Consumes(MediaType.WILDCARD)
    public Response rotateKey(@PathParam("userId") String userId,
                              @Parameter(hidden = true) @HeaderParam(HttpHeaders.CONTENT_LENGTH) String contentLength,
                              InputStream body)
            throws IOException {
        if (!caller.isAdmin() && !caller.userId().equals(userId)) {
            throw Problem.of(Problem.Kind.FORBIDDEN, "Only admins rotate other users' keys").toException();
        }
        // any content type, or none: a POST with no body at all (the console's, curl -X POST) is the usual one
        JsonObject given = (JsonObject) new JsonBodyReader(limits).read(JsonObject.class, contentLength, body);
        String key = users.rotateKey(userId, keyKind(given));
        return Response.status(Response.Status.CREATED)
                .entity(Jsonp.createObjectBuilder().add("userId", userId).add("apiKey", key).build()).build();
    }

    /** The members a key body takes. */
    static final Set<String> KEY_FIELDS = Set.of("kind");

    /** The kind of key a {@code /keys} body asks for: Dockyard's when there is no body or no kind. */
    static KeyKind keyKind(JsonObject body) {
        if (body == null) {
            return KeyKind.DOCKYARD;
        }
        JsonFields.requireOnly(body, KEY_FIELDS, "");
        String kind = JsonFields.string(body, "kind", KeyKind.DOCKYARD.apiName(), "kind");
        return KeyKind.named(kind).orElseThrow(() -> Problem.of(Problem.Kind.VALIDATION,
                "kind must be \"dockyard\" or \"e2b\"").toException());
    }

    /**
     * Deletes a user (admins only), their live runtimes first, then their kept workspaces, snapshots,
     * credentials and idempotency keys: 204; yourself, the bootstrap admin or the last admin: 409.
     */
    @DELETE
    @Path("{userId}")
    public Response delete(@PathParam("userId") String userId) {
        requireAdmin();
        users.delete(caller.userId(), userId);
        return Response.noContent().build();
    }

    /**
     * {@code {"userId", "role"}} → 201 {@code {"userId", "apiKey"}}: the key is shown this once. An
     * existing id (or the bootstrap admin's) is a 409: neither its role nor its keys change here.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(JsonObject body) {
        requireAdmin();
        if (body == null) {
            throw Problem.of(Problem.Kind.VALIDATION, "A JSON body is required: {\"userId\": \"...\"}").toException();
        }
        JsonFields.requireOnly(body, USER_FIELDS, "");
        String id = JsonFields.string(body, "userId", null, "userId");
        if (id == null) {
            throw Problem.of(Problem.Kind.VALIDATION, "userId is required").toException();
        }
        SafeIds.require(id, "userId");
        String roleName = JsonFields.string(body, "role", "user", "role");
        Role role;
        if (roleName.equalsIgnoreCase("user") || roleName.equalsIgnoreCase("admin")) {
            role = Role.valueOf(roleName.toUpperCase(Locale.ROOT));
        } else {
            throw Problem.of(Problem.Kind.VALIDATION, "role must be \"user\" or \"admin\"").toException();
        }
        String key = users.create(id, role);
        return Response.status(Response.Status.CREATED)
                .entity(Jsonp.createObjectBuilder().add("userId", id).add("apiKey", key).build()).build();
    }

    /**
     * Per-user quota overrides: {@code {"maxRuntimes", "maxCpus", "maxMemoryMb", "maxSnapshots",
     * "maxSnapshotMb"}}, null for the default.
     */
    @PUT
    @Path("{userId}/quota")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject quota(@PathParam("userId") String userId, JsonObject body) {
        requireAdmin();
        if (body == null) {
            // an empty body would reset every quota to the defaults without a word
            throw Problem.of(Problem.Kind.VALIDATION, "A JSON body is required: {\"maxRuntimes\": N, ...}, null "
                    + "for a default").toException();
        }
        JsonFields.requireOnly(body, QUOTA_FIELDS, "");
        Integer runtimes = positiveInt(body, "maxRuntimes");
        Integer memory = positiveInt(body, "maxMemoryMb");
        Double cpus = null;
        if (body.get("maxCpus") != null && !body.isNull("maxCpus")) {
            if (!(body.get("maxCpus") instanceof JsonNumber n) || !(n.doubleValue() >= 0)
                    || !Double.isFinite(n.doubleValue())) {
                throw Problem.of(Problem.Kind.VALIDATION, "maxCpus must be a non-negative number").toException();
            }
            cpus = n.doubleValue();
        }
        Integer snapshots = positiveInt(body, "maxSnapshots");
        Integer snapshotMb = positiveInt(body, "maxSnapshotMb");
        accounts.setQuota(userId, runtimes, cpus, memory)
                .orElseThrow(() -> Problem.of(Problem.Kind.NOT_FOUND, "No user " + userId).toException());
        UserAccount account = accounts.setSnapshotQuota(userId, snapshots, snapshotMb)
                .orElseThrow(() -> Problem.of(Problem.Kind.NOT_FOUND, "No user " + userId).toException());
        return view(account);
    }

    private static Integer positiveInt(JsonObject body, String key) {
        if (body.get(key) == null || body.isNull(key)) {
            return null;
        }
        int value = JsonFields.integer(body, key, 0, key);
        if (value < 0) {
            throw Problem.of(Problem.Kind.VALIDATION, key + " must be a non-negative integer").toException();
        }
        return value;
    }

    private static JsonObject view(UserAccount account) {
        JsonObjectBuilder quota = Jsonp.createObjectBuilder();
        addOrNull(quota, "maxRuntimes", account.maxRuntimes());
        addOrNull(quota, "maxCpus", account.maxCpus());
        addOrNull(quota, "maxMemoryMb", account.maxMemoryMb());
        addOrNull(quota, "maxSnapshots", account.maxSnapshots());
        addOrNull(quota, "maxSnapshotMb", account.maxSnapshotMb());
        return Jsonp.createObjectBuilder().add("userId", account.userId()).add("role", account.role().name().toLowerCase(Locale.ROOT))
                .add("quota", quota).build();
    }

    private static void addOrNull(JsonObjectBuilder b, String key, Number value) {
        if (value == null) {
            b.addNull(key);
        } else {
            b.add(key, value.doubleValue() == Math.rint(value.doubleValue()) && !(value instanceof Double)
                    ? Jsonp.createValue(value.longValue()) : Jsonp.createValue(value.doubleValue()));
        }
    }

    @GET
    @Path("me")
    public JsonObject me() {
        return accounts.find(caller.userId()).map(UserResource::view).orElseGet(() -> Jsonp.createObjectBuilder()
                .add("userId", caller.userId()).add("role", caller.role().name().toLowerCase(Locale.ROOT)).build());
    }

    private void requireAdmin() {
        if (!caller.isAdmin()) {
            throw Problem.of(Problem.Kind.FORBIDDEN, "Only admins manage users").toException();
        }
    }
}
