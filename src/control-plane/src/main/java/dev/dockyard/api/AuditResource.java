package dev.dockyard.api;

import dev.dockyard.audit.AuditTrail;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The audit trail across runtimes, for admins: {@code GET /api/v1/audit?userId=&since=&limit=}. */
@Path("audit")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class AuditResource {

    @Inject
    Caller caller;

    @Inject
    AuditTrail trail;

    @GET
    public JsonObject search(@QueryParam("userId") String userId, @QueryParam("since") String since,
                             @QueryParam("limit") String limitParam) {
        int limit = QueryParams.intInRange(limitParam, "limit", 100, 1, 1000);
        if (!caller.isAdmin()) {
            throw Problem.of(Problem.Kind.FORBIDDEN, "Only admins read the whole audit trail; a runtime's own is at "
                    + "/api/v1/runtimes/{id}/audit").toException();
        }
        Instant from = null;
        if (since != null && !since.isBlank()) {
            try {
                from = Instant.parse(since);
            } catch (DateTimeParseException e) {
                throw Problem.of(Problem.Kind.VALIDATION, "since must be an ISO-8601 instant, e.g. "
                        + "2026-11-21T08:00:00Z").toException();
            }
        }
        if (userId != null && !userId.isEmpty()) {
            SafeIds.require(userId, "userId");
        }
        return AuditView.of(trail.search(userId == null || userId.isBlank() ? null : userId, from, limit));
    }
}
