package dev.dockyard.api;

import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.UnsupportedIsolationException;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.persistence.DatabaseOutage;
import dev.dockyard.placement.NodeForbiddenException;
import dev.dockyard.placement.PlacementRefusedException;
import dev.dockyard.protocol.InvalidActionException;
import dev.dockyard.runtime.RuntimeGates;
import jakarta.json.JsonException;
import jakarta.json.bind.JsonbException;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Every error leaves the API as problem+json; unexpected ones are logged here, once, without secrets. */
public final class ProblemMappers {

    /** Every mapper, for the applications that list their classes. */
    public static Set<Class<?>> all() {
        return Set.of(ForProblem.class, ForRefused.class, ForInvalidAction.class, ForBackend.class, ForWebApplication.class, ForProcessing.class, ForJson.class, ForRuntimeBusy.class, ForPlacement.class, ForNodeAccess.class, ForUnsupportedIsolation.class, ForAnything.class);
    }


    /** The reader and filters every body, path and header goes through (JsonBodyReader, BodyLimitFilter, SafePathIds, SingleHeaders). */
    public static Set<Class<?>> inputChecks() {
        return Set.of(JsonBodyReader.class, BodyLimitFilter.class, SafePathIds.class, SingleHeaders.class);
    }

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class.getName());

    private ProblemMappers() {
    }

    @Provider
    public static class ForProblem implements ExceptionMapper<Problem.ProblemException> {
        @Override
        public Response toResponse(Problem.ProblemException e) {
            return e.problem().toResponse();
        }
    }

    @Provider
    public static class ForRefused implements ExceptionMapper<Refused> {
        @Override
        public Response toResponse(Refused e) {
            Response answer = problemOf(e).toResponse();
            return e.retryAfterSeconds() > 0
                    ? Response.fromResponse(answer).header("Retry-After", e.retryAfterSeconds()).build() : answer;
        }
    }

    /** A use case's refusal as the problem kind of the same name, with its members. */
    public static Problem problemOf(Refused e) {
        Problem problem = Problem.of(Problem.Kind.valueOf(e.reason().name()), e.getMessage());
        e.members().forEach(problem::with);
        return problem;
    }

    @Provider
    public static class ForInvalidAction implements ExceptionMapper<InvalidActionException> {
        @Override
        public Response toResponse(InvalidActionException e) {
            return Problem.of(Problem.Kind.INVALID_ACTION, e.getMessage()).toResponse();
        }
    }

    @Provider
    public static class ForBackend implements ExceptionMapper<BackendException> {
        @Override
        public Response toResponse(BackendException e) {
            LOG.log(Level.WARNING, "Backend failure: " + e.getMessage());
            // answered as a use case answers it (an engine that did not answer: 503 with Retry-After)
            return new ForRefused().toResponse(Refused.ofBackend(e, e.getMessage()));
        }
    }

    @Provider
    public static class ForWebApplication implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Problem.ProblemException inner = problemCause(e);
            if (inner != null) {
                return inner.problem().toResponse();
            }
            if (e instanceof NotFoundException) {
                return Problem.of(Problem.Kind.NOT_FOUND, "No such resource").toResponse();
            }
            if (e instanceof NotAllowedException) {
                return Problem.of(Problem.Kind.METHOD_NOT_ALLOWED, "This method is not allowed here").toResponse();
            }
            if (e instanceof NotSupportedException) {
                return Problem.of(Problem.Kind.UNSUPPORTED_MEDIA_TYPE, "Send application/json").toResponse();
            }
            if (e instanceof NotAcceptableException) {
                return Problem.of(Problem.Kind.NOT_ACCEPTABLE, "This resource answers application/json").toResponse();
            }
            if (isJsonError(e)) {
                return Problem.of(Problem.Kind.VALIDATION, "The body is not valid JSON").toResponse();
            }
            int status = e.getResponse() == null ? 500 : e.getResponse().getStatus();
            if (status >= 400 && status < 500) {
                // the runtime's own message names Dockyard's classes and methods: not for callers
                return Problem.of(Problem.Kind.forStatus(status), "The request's parameters or headers could not be "
                        + "read (e.g. invalid percent-encoding in the query)").toResponse();
            }
            LOG.log(Level.WARNING, "Request failed", e);
            return Problem.of(Problem.Kind.INTERNAL, "The request failed inside the control plane").toResponse();
        }

        private static boolean isJsonError(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof JsonParsingException || t instanceof JsonbException
                        || t instanceof JsonException) {
                    return true;
                }
            }
            return false;
        }
    }

    @Provider
    public static class ForProcessing implements ExceptionMapper<ProcessingException> {
        @Override
        public Response toResponse(ProcessingException e) {
            Problem.ProblemException inner = problemCause(e);
            if (inner != null) {
                // JsonBodyReader's refusal, wrapped by the JAX-RS runtime on its way out of the reader
                return inner.problem().toResponse();
            }
            return Problem.of(Problem.Kind.VALIDATION, "The body could not be read as JSON").toResponse();
        }
    }

    @Provider
    public static class ForJson implements ExceptionMapper<JsonException> {
        @Override
        public Response toResponse(JsonException e) {
            return Problem.of(Problem.Kind.VALIDATION, "The body is not valid JSON").toResponse();
        }
    }

    /** A migration, pause or resume holds the runtime (runtime.RuntimeGates): come back later. */
    /**
     * No node can take the runtime now: 429 when the nodes are full, 503 when the one named (or
     * every one) is unhealthy; both with Retry-After. Not stored as an idempotent answer: a retry
     * with the same key may be placed. A runtime larger than any node may hold is a 400.
     */
    @Provider
    public static class ForPlacement implements ExceptionMapper<PlacementRefusedException> {
        @Override
        public Response toResponse(PlacementRefusedException e) {
            Problem problem = Problem.of(switch (e.reason()) {
                case NO_CAPACITY -> Problem.Kind.NO_CAPACITY;
                case NODE_UNHEALTHY -> Problem.Kind.NODE_UNAVAILABLE;
                case TOO_LARGE -> Problem.Kind.VALIDATION;
            }, e.getMessage());
            if (e.node() != null) {
                problem.with("node", Jsonp.createValue(e.node()));
            }
            Response.ResponseBuilder answer = Response.fromResponse(problem.toResponse());
            if (e.retryAfterSeconds() > 0) {
                answer.header("Retry-After", e.retryAfterSeconds());
            }
            return answer.build();
        }
    }

    /** A node the caller may not place runtimes on (placement.NodeAccess): a 403 naming it. */
    @Provider
    public static class ForNodeAccess implements ExceptionMapper<NodeForbiddenException> {
        @Override
        public Response toResponse(NodeForbiddenException e) {
            Problem problem = Problem.of(Problem.Kind.FORBIDDEN, e.getMessage());
            if (e.node() != null) {
                problem.with("node", Jsonp.createValue(e.node()));
            }
            return problem.toResponse();
        }
    }

    /** A node that cannot give the runtime class, GPUs or networks asked for: a 400 naming it. */
    @Provider
    public static class ForUnsupportedIsolation implements ExceptionMapper<UnsupportedIsolationException> {
        @Override
        public Response toResponse(UnsupportedIsolationException e) {
            return Problem.of(Problem.Kind.VALIDATION, e.getMessage()).with("node", Jsonp.createValue(e.node()))
                    .toResponse();
        }
    }

    @Provider
    public static class ForRuntimeBusy implements ExceptionMapper<RuntimeGates.RuntimeBusyException> {
        @Override
        public Response toResponse(RuntimeGates.RuntimeBusyException e) {
            return Problem.of(e.migrating() ? Problem.Kind.RUNTIME_MIGRATING : Problem.Kind.MIGRATION_REFUSED,
                    e.getMessage()).toResponse();
        }
    }

    /** The problem a body reader or a provider threw, under whatever the JAX-RS runtime wrapped it in. */
    static Problem.ProblemException problemCause(Throwable e) {
        int hops = 0;
        for (Throwable t = e; t != null && hops < 10; t = t.getCause(), hops++) {
            if (t instanceof Problem.ProblemException p) {
                return p;
            }
        }
        return null;
    }

    @Provider
    public static class ForAnything implements ExceptionMapper<Throwable> {
        @Override
        public Response toResponse(Throwable e) {
            Problem.ProblemException inner = problemCause(e);
            if (inner != null) {
                return inner.problem().toResponse();
            }
            if (DatabaseOutage.causes(e)) {
                // the request was sound: the same one succeeds once the database answers again
                DatabaseOutage.note(e);
                return Response.fromResponse(Problem.of(Problem.Kind.DATABASE_UNAVAILABLE, DatabaseOutage.ANSWER)
                        .toResponse())
                        .header("Retry-After", DatabaseOutage.RETRY_AFTER_SECONDS).build();
            }
            LOG.log(Level.WARNING, "Unexpected failure", e);
            return Problem.of(Problem.Kind.INTERNAL, "The request failed inside the control plane").toResponse();
        }
    }
}
