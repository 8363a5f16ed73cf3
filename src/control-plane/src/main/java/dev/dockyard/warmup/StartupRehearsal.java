package dev.dockyard.warmup;

import dev.dockyard.application.users.UserAdministration;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import dev.dockyard.tenancy.UserAccount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The start's rehearsal: one provision on the default node through the API, over loopback, by a
 * user made for it and deleted after it, with an {@code echo} in between. The first provision after
 * a start paid for every class the path loads and every statement the database compiles the first
 * time, beside the compilers' backlog of the start: 1.5–1.9 s at the client against 0.7 s for the
 * next (measured 2026-12-03, a private server, 2 cores), all of cold p99's miss in the benchmark.
 * The rehearsal pays it before {@code /health/ready} says UP.
 *
 * <p>It leaves nothing: its runtime is deleted, then its user with what the user kept (the runtime's
 * history with it); audit entries stay, the record that it ran. A rehearsal a crash cut short leaves
 * a user named {@link #USER_PREFIX}…; the next start of any control plane on the database deletes
 * those older than {@link #LEFTOVER_AGE} (with their runtimes). When the default node lacks the
 * sandbox image, or refuses, the rehearsal says so and the start goes on. Off with
 * {@code dockyard.warm-up.rehearsal=false}.
 */
@ApplicationScoped
public class StartupRehearsal {

    private static final Logger LOG = Logger.getLogger(StartupRehearsal.class.getName());

    /** Its users' ids begin so; nobody else's should (an admin who names a user so sees it go). */
    static final String USER_PREFIX = "dockyard-warm-up-";
    /** Who deletes the rehearsal's users: any id but theirs ({@link UserAdministration#delete} refuses oneself). */
    private static final String CALLER = "dockyard-warm-up";
    /** A rehearsal user older than this is a crashed start's: no rehearsal runs this long. */
    static final Duration LEFTOVER_AGE = Duration.ofMinutes(10);

    @Inject
    UserAdministration users;

    @Inject
    Accounts accounts;

    @Inject
    Clock clock;

    @Inject
    DockyardConfig config;

    @Inject
    @ConfigProperty(name = "dockyard.warm-up.rehearsal", defaultValue = "true")
    boolean enabled;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** What the rehearsal did, in a line for the readiness check and the log. */
    public String rehearse(URI api) {
        if (!enabled) {
            return "off";
        }
        Duration wait = config.sandboxTimeout();
        removeLeftovers();
        String userId = USER_PREFIX + HexFormat.of().formatHex(randomBytes());
        String key;
        try {
            key = users.create(userId, Role.USER);
        } catch (RuntimeException e) {
            return "not run: its user could not be made (" + e.getMessage() + ")";
        }
        try {
            return provisionActDelete(api, key, wait);
        } catch (IOException | RuntimeException e) {
            return "failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            deleteUser(userId);
        }
    }

    private String provisionActDelete(URI api, String key, Duration wait) throws IOException, InterruptedException {
        long start = System.nanoTime();
        HttpResponse<String> provisioned = send(key, HttpRequest.newBuilder(api.resolve("runtimes"))
                .header("Prefer", "wait=" + wait.toSeconds()).header("Content-Type", "application/json")
                .timeout(wait.plusSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"conversationId\":\"warm-up\"}")));
        long provisionedAt = System.nanoTime();
        if (provisioned.statusCode() / 100 != 2) {
            return "no runtime: the provision was answered " + provisioned.statusCode() + " " + detail(provisioned.body());
        }
        JsonObject runtime = Jsonp.createReader(new StringReader(provisioned.body())).readObject();
        String id = runtime.getString("id");
        String status = runtime.getString("status", "?");
        String outcome = status + " in " + (provisionedAt - start) / 1_000_000 + " ms";
        if ("READY".equals(status)) {
            HttpResponse<String> echo = send(key, HttpRequest.newBuilder(api.resolve("runtimes/" + id + "/actions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"action\":\"run\",\"args\":{\"command\":\"echo rehearsal\"}}")));
            outcome += ", echo answered " + echo.statusCode() + " in " + (System.nanoTime() - provisionedAt) / 1_000_000
                    + " ms";
        }
        HttpResponse<String> deleted = send(key, HttpRequest.newBuilder(api.resolve("runtimes/" + id))
                .timeout(Duration.ofSeconds(60)).DELETE());
        return outcome + ", deleted " + deleted.statusCode();
    }

    private HttpResponse<String> send(String key, HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.header(StartupWarmUp.KEY_HEADER, key).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A problem's detail, if the body is one; the API's answers never hold the key. */
    private static String detail(String body) {
        try {
            return "(" + Jsonp.createReader(new StringReader(body)).readObject().getString("detail", "") + ")";
        } catch (RuntimeException e) {
            return "";
        }
    }

    private void deleteUser(String userId) {
        try {
            users.delete(CALLER, userId);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "The start's rehearsal could not delete its user " + userId
                    + "; the next start deletes it", e);
        }
    }

    /** Rehearsal users of starts a crash cut short (any control plane's on this database). */
    private void removeLeftovers() {
        try {
            for (UserAccount account : accounts.all()) {
                if (isLeftover(account.userId(), account.createdAt(), clock.instant())) {
                    LOG.info("Deleting user " + account.userId() + ", a rehearsal's that a stop cut short");
                    deleteUser(account.userId());
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.INFO, "Could not look for the rehearsal users of earlier starts", e);
        }
    }

    /** A rehearsal's user that no rehearsal running now can own: made longer than {@link #LEFTOVER_AGE} ago. */
    static boolean isLeftover(String userId, Instant createdAt, Instant now) {
        return userId.startsWith(USER_PREFIX) && createdAt.isBefore(now.minus(LEFTOVER_AGE));
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[6];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
