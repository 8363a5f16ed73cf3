package dev.dockyard.api;

import dev.dockyard.credentials.CredentialException;
import dev.dockyard.credentials.Credentials;
import dev.dockyard.credentials.StoredCredential;
import dev.dockyard.jsonp.Jsonp;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The caller's provider credentials, exported into their sandboxes under their name:
 * {@code PUT /credentials/{name}} with {@code {"type":"secret","value"}} or
 * {@code {"type":"oauth2","refreshToken","tokenEndpoint","clientId","clientSecret"?}}. Listing
 * shows names, types and expiry, never a value. An OAuth2 credential is refreshed once before it
 * is stored, against an endpoint the {@link dev.dockyard.credentials.TokenEndpointPolicy} allows.
 */
@Path("credentials")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class CredentialResource {

    /** The members a credential body takes ({@code value} for a secret, the rest for oauth2). */
    static final Set<String> FIELDS = Set.of("type", "value", "refreshToken", "tokenEndpoint", "clientId",
            "clientSecret");

    private static final Pattern NAME = Pattern.compile("^[A-Z_][A-Z0-9_]{0,99}$");
    private static final Set<String> RESERVED_PREFIXES = Set.of("LLM_", "DOCKYARD_", "SESSION_API_KEY");

    @Inject
    Caller caller;

    @Inject
    Credentials credentials;

    @PUT
    @Path("{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response store(@PathParam("name") String name, JsonObject body) {
        if (!NAME.matcher(name).matches() || RESERVED_PREFIXES.stream().anyMatch(name::startsWith)) {
            throw invalid("the name must be an upper-case variable name, not starting with LLM_, DOCKYARD_ or "
                    + "SESSION_API_KEY");
        }
        if (body == null) {
            throw invalid("A JSON body is required: {\"type\": \"secret\", \"value\": \"...\"}");
        }
        JsonFields.requireOnly(body, FIELDS, "");
        String type = JsonFields.string(body, "type", null, "type");
        StoredCredential credential = new StoredCredential(caller.userId(), name, type == null ? "" : type);
        if ("secret".equals(type)) {
            credential.secret(required(body, "value"));
        } else if ("oauth2".equals(type)) {
            credential.oauth2(required(body, "refreshToken"), required(body, "tokenEndpoint"),
                    JsonFields.string(body, "clientId", null, "clientId"),
                    JsonFields.string(body, "clientSecret", null, "clientSecret"));
        } else {
            throw invalid("type must be \"secret\" or \"oauth2\"");
        }
        try {
            credentials.store(credential);
        } catch (CredentialException e) {
            throw invalid(e.getMessage());
        }
        return Response.noContent().build();
    }

    @GET
    public JsonObject list() {
        JsonArrayBuilder items = Jsonp.createArrayBuilder();
        for (StoredCredential c : credentials.of(caller.userId())) {
            JsonObjectBuilder item = Jsonp.createObjectBuilder().add("name", c.name()).add("type", c.type());
            if (c.expiresAt() == null) {
                item.addNull("expiresAt");
            } else {
                item.add("expiresAt", c.expiresAt().toString());
            }
            items.add(item);
        }
        return Jsonp.createObjectBuilder().add("credentials", items).build();
    }

    @DELETE
    @Path("{name}")
    public Response delete(@PathParam("name") String name) {
        if (!credentials.delete(caller.userId(), name)) {
            throw Problem.of(Problem.Kind.NOT_FOUND, "No credential " + name).toException();
        }
        return Response.noContent().build();
    }

    private static String required(JsonObject body, String key) {
        // never echoes the value: it is a secret
        String value = JsonFields.string(body, key, null, key);
        if (value == null || value.isEmpty()) {
            throw invalid(key + " is required");
        }
        return value;
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
