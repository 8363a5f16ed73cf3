package dev.dockyard.api;

import dev.dockyard.application.Refused;
import dev.dockyard.application.idempotency.IdempotentRequests;
import dev.dockyard.application.idempotency.IdempotentRequests.StoredAnswer;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ConversationBusyException;
import dev.dockyard.tenancy.ApiKeyRecord;
import dev.dockyard.tenancy.QuotaExceededException;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import java.io.StringReader;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * How a provision and a fork answer: 202 with the runtime, or 201 once READY when asked to wait;
 * their refusals as problems; with an {@code Idempotency-Key}, the first answer kept and given
 * again to every retry.
 */
final class ProvisionAnswers {

    private ProvisionAnswers() {
    }

    /**
     * Answers {@code first}'s answer; with an {@code Idempotency-Key}, only the first request of
     * {@code userId} with that key carries it out, and every retry (the same {@code request}) gets
     * its answer again. A provision and a fork share the user's keys, as their requests differ.
     */
    static void once(AsyncResponse async, IdempotentRequests idempotent, String userId, String idempotencyKey,
                           String request, Supplier<CompletionStage<Response>> first, URI base) {
        if (idempotencyKey == null) {
            resume(async, first.get());
            return;
        }
        if (idempotencyKey.isBlank() || idempotencyKey.length() > 200) {
            throw Problem.of(Problem.Kind.VALIDATION, RuntimeResource.IDEMPOTENCY_HEADER + " must be 1 to 200 characters")
                    .toException();
        }
        resume(async, idempotent.once(userId + "/" + idempotencyKey, ApiKeyRecord.hash(request), first,
                r -> new StoredAnswer(r.getStatus(), String.valueOf(r.getEntity())))
                .thenApply(outcome -> outcome.isReplay() ? replayed(outcome.replayed(), base)
                        : Response.fromResponse(outcome.first()).header(RuntimeResource.REPLAYED_HEADER, "false").build()));
    }

    /**
     * A provision (or a fork's) as {@code provision} makes it, its refusals as problems: a
     * conversation that has a live runtime already is a 409 naming it, a spent quota a 429.
     */
    static SandboxRuntime refusalsAnswered(Supplier<SandboxRuntime> provision) {
        try {
            return provision.get();
        } catch (ConversationBusyException e) {
            throw Problem.of(Problem.Kind.CONVERSATION_BUSY, e.getMessage())
                    .with("runtime", RuntimeView.of(e.existing())).toException();
        } catch (QuotaExceededException e) {
            throw Problem.of(Problem.Kind.QUOTA_EXCEEDED, e.getMessage())
                    .with("limit", Jsonp.createValue(e.limit()))
                    .with("allowed", Jsonp.createValue(e.allowed().doubleValue()))
                    .with("inUse", Jsonp.createValue(e.inUse().doubleValue())).toException();
        }
    }

    /**
     * A first answer, refusals included: what an idempotent request stores and replays. A refusal
     * that asks to come back later (a 503 with Retry-After: a node, the database or a sandbox being
     * recovered) is no answer to keep for the key's day: it fails the first, whose claim is
     * forgotten, and the retry it asks for carries the request out.
     */
    static CompletionStage<Response> answered(Supplier<CompletionStage<Response>> answer) {
        try {
            return answer.get();
        } catch (Problem.ProblemException e) {
            return CompletableFuture.completedFuture(e.problem().toResponse());
        } catch (Refused e) {
            if (e.retryAfterSeconds() > 0) {
                throw e;
            }
            return CompletableFuture.completedFuture(ProblemMappers.problemOf(e).toResponse());
        }
    }

    /** 202 with the runtime being provisioned, or 201 once READY when {@code Prefer: wait=N} says to wait. */
    static CompletionStage<Response> accepted(RuntimeService lifecycle, SandboxRuntime runtime, int wait, URI base) {
        CompletionStage<SandboxRuntime> settled = wait > 0 ? lifecycle.settled(runtime, Duration.ofSeconds(wait))
                : CompletableFuture.completedFuture(runtime);
        return settled.thenApply(now -> {
            Response.Status status = now.status() == RuntimeStatus.READY ? Response.Status.CREATED
                    : Response.Status.ACCEPTED;
            Response.ResponseBuilder answer = Response.status(status).location(location(base, now.id()))
                    .entity(RuntimeView.of(now));
            if (wait > 0) {
                answer.header("Preference-Applied", "wait=" + wait);
            }
            return answer.build();
        });
    }

    private static Response replayed(StoredAnswer first, URI base) {
        int status = first.status();
        Response.ResponseBuilder again = Response.status(status).entity(first.body())
                .type(status >= 400 ? Problem.MEDIA_TYPE : MediaType.APPLICATION_JSON_TYPE)
                .header(RuntimeResource.REPLAYED_HEADER, "true");
        if (status == 201 || status == 202) {
            try (var reader = Jsonp.createReader(new StringReader(first.body()))) {
                again.location(location(base, reader.readObject().getString("id")));
            }
        }
        return again.build();
    }

    private static URI location(URI base, String runtimeId) {
        return UriBuilder.fromUri(base).path("runtimes").path(runtimeId).build();
    }

    /** Answers the request with the stage's response, or its failure. */
    static void resume(AsyncResponse async, CompletionStage<Response> answer) {
        answer.whenComplete((response, error) -> {
            if (error != null) {
                async.resume(error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
            } else {
                async.resume(response);
            }
        });
    }
}
