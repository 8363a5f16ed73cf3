package dev.dockyard.backend.docker;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Asks a sandbox's executor whether it takes a session key, as the tests of this package do. */
final class ExecutorKeys {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private ExecutorKeys() {
    }

    /**
     * Whether the executor at {@code endpoint} answers {@code /ready} with {@code key}: 200 takes it,
     * 401 or 403 refuses it; anything else (booting, restarting) is asked again, for at most
     * {@code limit}. Empty when it answered neither within the limit.
     */
    static Optional<Boolean> takes(URI endpoint, String key, Duration limit) throws InterruptedException {
        URI ready = endpoint.resolve("/ready");
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> answer = HTTP.send(HttpRequest.newBuilder(ready).header("X-Session-API-Key", key)
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding());
                if (answer.statusCode() == 200) {
                    return Optional.of(true);
                }
                if (answer.statusCode() == 401 || answer.statusCode() == 403) {
                    return Optional.of(false);
                }
            } catch (IOException notYet) {
                // the executor is not listening yet
            }
            Thread.sleep(100);
        }
        return Optional.empty();
    }
}
