package dev.dockyard.e2b;

import dev.dockyard.jsonp.Jsonp;
import jakarta.annotation.Priority;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.io.StringReader;

/**
 * Every error of E2B's API as E2B's body: {@code {"code": <the HTTP status>, "message": "…"}},
 * {@code application/json}. E2B's SDKs read {@code code} from the body (the JS SDK's "not found" and
 * "already paused" are {@code code} 404 and 409; Python needs both members), so the answers of
 * Dockyard's own filters and mappers (problem+json: a missing key's 401, JAX-RS's 404 and 405, a body
 * that is not JSON) are rewritten here, their {@code detail} becoming the message. A failing sandbox
 * backend or executor (502 in Dockyard's words) is E2B's 503, a dependency that is down, which the
 * SDKs raise as "service busy".
 */
@Provider
@Priority(Priorities.USER)
public class E2bErrors implements ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        int status = response.getStatus();
        if (status < 400) {
            return;
        }
        int code = code(status);
        response.setStatus(code);
        response.setEntity(body(code, messageOf(response.getEntity(), status)).toString(), null,
                MediaType.APPLICATION_JSON_TYPE);
    }

    /** E2B's status for Dockyard's: a failing backend or executor (502) is a dependency down, 503. */
    static int code(int status) {
        return status == Response.Status.BAD_GATEWAY.getStatusCode()
                ? Response.Status.SERVICE_UNAVAILABLE.getStatusCode() : status;
    }

    /** E2B's error body. */
    static JsonObject body(int code, String message) {
        return Jsonp.createObjectBuilder().add("code", code).add("message", message).build();
    }

    /** What an error answer says: a problem's detail (else its title), else the status's reason phrase. */
    static String messageOf(Object entity, int status) {
        JsonObject json = null;
        if (entity instanceof JsonObject object) {
            json = object;
        } else if (entity instanceof String text && text.startsWith("{")) {
            try (JsonReader reader = Jsonp.createReader(new StringReader(text))) {
                json = reader.readObject();
            } catch (JsonException | ClassCastException e) {
                json = null;
            }
        }
        if (json != null) {
            for (String member : new String[] {"detail", "message", "title"}) {
                if (json.get(member) instanceof JsonString s) {
                    return s.getString();
                }
            }
        }
        Response.StatusType known = Response.Status.fromStatusCode(status);
        return known == null ? "HTTP " + status : known.getReasonPhrase();
    }
}
