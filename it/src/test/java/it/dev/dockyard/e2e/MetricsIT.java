package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * /metrics end to end: scraped (Prometheus text, no login) before and after one provisioning and
 * ten actions, the counters and timers moved by exactly what was done, and every label value of a
 * Dockyard metric comes from a closed set: no key, id or command text. On the disposable control
 * plane, which no other suite uses meanwhile: the counters count what this suite did and nothing else.
 */
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class MetricsIT {

    private static final DockyardApi API = DisposableControlPlane.api();
    private static final String BASE = DisposableControlPlane.server().url();
    private static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final List<String> COLD_STEPS = List.of("credentials", "image", "turn", "create", "start", "record",
            "readiness", "inject", "limits");

    /** One sample line: its name, labels (without the registry's mp_scope) and value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** One scrape: its text and samples. */
    record Scrape(String text, List<Sample> samples) {

        /** The sum of the samples named {@code name} that carry all of {@code labels} (name, value, ...). */
        double value(String name, String... labels) {
            return samples.stream().filter(s -> s.name().equals(name) && has(s, labels)).mapToDouble(Sample::value)
                    .sum();
        }

        boolean present(String name, String... labels) {
            return samples.stream().anyMatch(s -> s.name().equals(name) && has(s, labels));
        }

        private static boolean has(Sample sample, String... labels) {
            for (int i = 0; i < labels.length; i += 2) {
                if (!labels[i + 1].equals(sample.labels().get(labels[i]))) {
                    return false;
                }
            }
            return true;
        }
    }

    private static Scrape scrape(String accept) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(BASE + "/metrics"))
                .timeout(Duration.ofSeconds(30)).GET();
        if (accept != null) {
            request.header("Accept", accept);
        }
        HttpResponse<String> answer = HttpClient.newHttpClient().send(request.build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        List<Sample> samples = new ArrayList<>();
        for (String line : answer.body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line.strip());
            assertTrue(m.matches(), "not a Prometheus sample line: " + line);
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, number(m.group(4))));
        }
        return new Scrape(answer.body(), samples);
    }

    @Test
    void shouldCountAProvisioningAndTenActionsExactly() throws Exception {
        Scrape before = scrape(null);
        String conversation = "it-metrics-" + UUID.randomUUID();
        // a size no pool keeps warm: the cold path, every step timed
        DockyardApi.Answer provisioned = API.provision(Json.createObjectBuilder().add("conversationId", conversation)
                .add("sandbox", Json.createObjectBuilder().add("memoryMb", 1000)).build(), 180);
        assertEquals(201, provisioned.status(), provisioned.body());
        String id = provisioned.json().getString("id");
        assertEquals("READY", provisioned.json().getString("status"), provisioned.body());
        String secretWord = "metrics-free-text-" + UUID.randomUUID();
        try {
            for (int i = 0; i < 7; i++) {
                API.act(id, DockyardApi.run("echo " + secretWord + " " + i + " > /workspace/it-metrics-" + i));
            }
            for (int i = 0; i < 3; i++) {
                API.act(id, Json.createObjectBuilder().add("action", "read").add("args",
                        Json.createObjectBuilder().add("path", "/workspace/it-metrics-" + i)).build());
            }
            Scrape after = scrape(null);
            // kept as a test artefact: the sample in docs/operations.md comes from it
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "metrics-after.txt"), after.text());

            assertEquals(7, delta(before, after, "dockyard_action_round_trip_seconds_count", "type", "run"),
                    after.text());
            assertEquals(3, delta(before, after, "dockyard_action_round_trip_seconds_count", "type", "read"));
            assertTrue(after.value("dockyard_action_round_trip_seconds_sum", "type", "run")
                    > before.value("dockyard_action_round_trip_seconds_sum", "type", "run"));
            // echo and read are rated LOW and allowed under the default policy
            assertEquals(10, delta(before, after, "dockyard_actions_total", "risk", "LOW", "decision", "ALLOWED"));
            assertEquals(1, delta(before, after, "dockyard_runtime_ready_seconds_count", "path", "cold"));
            assertTrue(after.present("dockyard_runtime_ready_seconds", "path", "cold", "quantile", "0.99"),
                    "READY p99 is published");
            assertTrue(after.present("dockyard_runtime_ready_seconds", "path", "cold", "quantile", "0.5"),
                    "READY p50 is published");
            for (String step : COLD_STEPS) {
                assertEquals(1, delta(before, after, "dockyard_provisioning_step_seconds_count", "step", step),
                        "step " + step);
                // a histogram: the +Inf bucket counts every observation
                assertEquals(1, delta(before, after, "dockyard_provisioning_step_seconds_bucket", "step", step,
                        "le", "+Inf"), "step " + step);
            }
            assertEquals(0, delta(before, after, "dockyard_provisioning_step_seconds_count", "step", "repository"));
            // on whichever node placement chose
            assertEquals(1, delta(before, after, "dockyard_runtimes", "status", "READY"));

            assertNoSecretOrFreeText(after, id, conversation, secretWord);
        } finally {
            API.delete("runtimes/" + id);
        }
    }

    /** A sample's value: Prometheus writes infinities as +Inf and -Inf. */
    private static double number(String value) {
        return switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(value);
        };
    }

    private static double delta(Scrape before, Scrape after, String name, String... labels) {
        return after.value(name, labels) - before.value(name, labels);
    }

    /** Every label value of a Dockyard metric is from a closed set; no key, id or action text anywhere. */
    private static void assertNoSecretOrFreeText(Scrape scrape, String... freeText) {
        Set<String> closed = Set.of(
                // statuses, nodes, steps, paths, action types, risks, decisions, outcomes, kinds, limits
                "STARTING_RUNTIME", "BUILDING_RUNTIME", "RUNTIME_STARTED", "READY", "PAUSED", "STOPPED", "ERROR",
                "ERROR_RUNTIME_DISCONNECTED", "HIBERNATED", "local", "node2", "local1", "cli1", "credentials", "image", "turn",
                "create",
                "workspace", "start", "record", "readiness", "inject", "repository", "limits", "cold", "warm",
                "migration", "cached", "lock", "versioned", "base", "run", "run_ipython", "read", "write", "edit",
                "browse", "browse_interactive", "UNKNOWN", "LOW", "MEDIUM", "HIGH", "ALLOWED", "CONFIRMED",
                "AWAITING_CONFIRMATION", "BLOCKED", "completed", "skipped", "orphan_removed", "interrupted_failed",
                "disconnected", "reconnected", "released", "maxRuntimes", "maxCpus", "maxMemoryMb", "hit", "miss",
                "other", "application");
        Pattern numeric = Pattern.compile("[0-9.]+|\\+Inf");
        List<Sample> dockyard = scrape.samples().stream().filter(s -> s.name().startsWith("dockyard_")).toList();
        assertFalse(dockyard.isEmpty());
        for (Sample sample : dockyard) {
            sample.labels().forEach((name, value) -> {
                if (name.equals("pool")) {
                    assertTrue(value.matches("[a-z0-9][a-z0-9-]*"), "pool label " + value);
                } else if (name.equals("le") || name.equals("quantile")) {
                    assertTrue(numeric.matcher(value).matches(), name + "=" + value);
                } else {
                    assertTrue(closed.contains(value), "label " + name + "=\"" + value + "\" is not from a closed set");
                }
            });
        }
        assertFalse(scrape.text().contains(ADMIN_KEY), "the API key is in /metrics");
        for (String text : freeText) {
            assertFalse(scrape.text().contains(text), text + " is in /metrics");
        }
    }
}
