package dev.dockyard.warmup;

import dev.dockyard.application.users.RehearsalUsers;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The start's rehearsal: one provision on the default node through the API, over loopback, by a
 * user made for it and deleted after it ({@link RehearsalUsers}), with an {@code echo} in between.
 * The first provision after a start paid for every class the path loads and every statement the
 * database compiles the first time, beside the compilers' backlog of the start: 1.3–1.9 s at the
 * client against 0.7 s for the next (measured 2026-12-03, private servers, 2 cores), all of cold
 * p99's miss in the benchmark. The rehearsal pays it before {@code /health/ready} says UP. With a
 * pool of the default settings it claims a warm member (the path a first provision would then
 * take), which its pool boots again.
 *
 * <p>It leaves nothing: its runtime is deleted, then its user with what the user kept (the runtime's
 * history with it); audit entries stay, the record that it ran, and the metrics count its
 * provision. A rehearsal a crash cut short leaves its user (and the user's runtime, which the
 * reconciler looks after as any other): each start deletes the rehearsal users older than any
 * rehearsal can run ({@link #leftoverAge}). Without the sandbox image on the default node, or with
 * the API refusing, it says so and the start goes on. What it did goes to {@code /health/ready}
 * in status codes and exception names only (anyone may read that endpoint), the details to the log.
 * Off with {@code dockyard.warm-up.rehearsal=false}.
 */
@ApplicationScoped
public class StartupRehearsal {

    private static final Logger LOG = Logger.getLogger(StartupRehearsal.class.getName());
    /** What the rehearsal's echo and delete may take, each: as long as a user's would. */
    static final Duration ECHO_WAIT = Duration.ofSeconds(30);
    static final Duration DELETE_WAIT = Duration.ofSeconds(60);

    @Inject
    RehearsalUsers users;

    @Inject
    Clock clock;

    @Inject
    DockyardConfig config;

    @Inject
    @ConfigProperty(name = "dockyard.warm-up.rehearsal", defaultValue = "true")
    boolean enabled;

    /**
     * How old a rehearsal user must be to be a crashed start's: longer than a rehearsal can take
     * (its provision's wait, its echo, its delete) and a margin for a slow database.
     */
    static Duration leftoverAge(Duration sandboxTimeout) {
        return sandboxTimeout.plus(ECHO_WAIT).plus(DELETE_WAIT).plus(Duration.ofMinutes(10));
    }

    /** What the rehearsal did, in a line for the readiness check (the log gets the details). */
    public String rehearse(URI api) {
        Duration wait = config.sandboxTimeout();
        // whether or not this start rehearses: an earlier one's leftovers go
        removeLeftovers(leftoverAge(wait));
        if (!enabled) {
            return "off";
        }
        RehearsalUsers.Made user;
        try {
            user = users.make();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "The start's rehearsal could not make its user", e);
            return "not run: its user could not be made (" + e.getClass().getSimpleName() + ")";
        }
        boolean interrupted = false;
        String outcome;
        try {
            outcome = provisionActDelete(api, user.key(), wait);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "The start's rehearsal failed", e);
            outcome = "failed: " + e.getClass().getSimpleName();
        } catch (InterruptedException e) {
            // the user goes first: its deletion's database work must not find the thread interrupted
            interrupted = true;
            outcome = "interrupted";
        }
        try {
            users.delete(user.userId());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "The start's rehearsal could not delete its user " + user.userId()
                    + "; a later start deletes it", e);
            outcome += "; its user is left for a later start to delete";
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return outcome;
    }

    private String provisionActDelete(URI api, String key, Duration wait) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long start = System.nanoTime();
        HttpResponse<String> provisioned = send(http, key, HttpRequest.newBuilder(api.resolve("runtimes"))
                .header("Prefer", "wait=" + wait.toSeconds()).header("Content-Type", "application/json")
                .timeout(wait.plusSeconds(10)).POST(json(Jsonp.createObjectBuilder()
                        .add("conversationId", "warm-up").build())));
        long provisionedAt = System.nanoTime();
        if (provisioned.statusCode() / 100 != 2) {
            LOG.info("The start's rehearsal: its provision was answered " + provisioned.statusCode() + ": "
                    + provisioned.body());
            return "no runtime: the provision was answered " + provisioned.statusCode();
        }
        JsonObject runtime = Jsonp.createReader(new StringReader(provisioned.body())).readObject();
        String id = runtime.getString("id");
        String status = runtime.getString("status", "?");
        String outcome = status + " in " + (provisionedAt - start) / 1_000_000 + " ms";
        if ("READY".equals(status)) {
            HttpResponse<String> echo = send(http, key, HttpRequest.newBuilder(api.resolve("runtimes/" + id + "/actions"))
                    .header("Content-Type", "application/json").timeout(ECHO_WAIT)
                    .POST(json(Jsonp.createObjectBuilder().add("action", "run").add("args",
                            Jsonp.createObjectBuilder().add("command", "echo rehearsal")).build())));
            outcome += ", echo answered " + echo.statusCode() + " in " + (System.nanoTime() - provisionedAt) / 1_000_000
                    + " ms";
        } else {
            LOG.info("The start's rehearsal: its runtime " + id + " was " + status + " after the wait: "
                    + runtime.getString("statusMessage", ""));
        }
        HttpResponse<String> deleted = send(http, key, HttpRequest.newBuilder(api.resolve("runtimes/" + id))
                .timeout(DELETE_WAIT).DELETE());
        if (deleted.statusCode() / 100 != 2) {
            // its user's deletion deletes the runtime all the same
            LOG.info("The start's rehearsal: the delete of its runtime was answered " + deleted.statusCode() + ": "
                    + deleted.body());
            return outcome + ", its delete answered " + deleted.statusCode();
        }
        return outcome + ", deleted " + deleted.statusCode();
    }

    private static HttpRequest.BodyPublisher json(JsonObject body) {
        return HttpRequest.BodyPublishers.ofString(body.toString());
    }

    private static HttpResponse<String> send(HttpClient http, String key, HttpRequest.Builder request)
            throws IOException, InterruptedException {
        return http.send(request.header(StartupWarmUp.KEY_HEADER, key).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Rehearsal users of starts a crash cut short (any control plane's on this database). */
    private void removeLeftovers(Duration age) {
        try {
            for (String userId : users.leftovers(clock.instant(), age)) {
                LOG.info("Deleting user " + userId + ", a rehearsal's that a stop cut short");
                users.delete(userId);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not delete the rehearsal users of earlier starts; a later start tries again", e);
        }
    }
}
