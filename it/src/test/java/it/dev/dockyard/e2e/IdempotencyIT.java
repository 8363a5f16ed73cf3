package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Idempotency-Key on POST /runtimes: retries, even parallel ones, get the first answer. */
class IdempotencyIT {

    private static final DockyardApi API = new DockyardApi();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> post(String key, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(System.getProperty("dockyard.url",
                        "http://127.0.0.1:19080") + "/api/v1/runtimes"))
                .header("X-API-Key", System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString()).join();
    }

    @Test
    void shouldReturnTheFirstAnswerToEveryRetryWithTheSameKey() throws Exception {
        String key = UUID.randomUUID().toString();
        String conversation = "it-idem-" + key;
        String body = Json.createObjectBuilder().add("conversationId", conversation).build().toString();
        List<CompletableFuture<HttpResponse<String>>> parallel = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            parallel.add(CompletableFuture.supplyAsync(() -> post(key, body)));
        }
        Set<String> ids = new HashSet<>();
        int replayed = 0;
        for (CompletableFuture<HttpResponse<String>> answer : parallel) {
            HttpResponse<String> response = answer.get();
            assertEquals(202, response.statusCode(), response.body());
            ids.add(DockyardApi.parse(response.body()).getString("id"));
            replayed += response.headers().firstValue("Idempotent-Replayed").orElse("").equals("true") ? 1 : 0;
        }
        String id = ids.iterator().next();
        try {
            assertEquals(1, ids.size(), "every answer names the same runtime: " + ids);
            assertEquals(5, replayed);
            HttpResponse<String> later = post(key, body);
            assertEquals(202, later.statusCode());
            assertEquals(id, DockyardApi.parse(later.body()).getString("id"));
            assertEquals("true", later.headers().firstValue("Idempotent-Replayed").orElse(""));
            assertEquals(1, API.get("runtimes?conversationId=" + conversation).json().getJsonArray("runtimes").size());

            HttpResponse<String> other = post(key, Json.createObjectBuilder().add("conversationId", "other").build()
                    .toString());
            assertEquals(422, other.statusCode(), other.body());
        } finally {
            API.delete("runtimes/" + id);
        }
    }
}
