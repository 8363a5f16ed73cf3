package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import jakarta.json.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * E2B's own JavaScript SDK, as published on npm, run unchanged against the test server: the suites
 * under {@code it/src/test/node/e2b} are what a user of E2B writes, configured only by E2B's
 * environment variables ({@code E2B_API_URL} the control API at {@code /e2b} on the API's port,
 * {@code E2B_SANDBOX_URL} the services' port, {@code E2B_API_KEY} a Dockyard user's {@code e2b_}
 * key). Node and the SDK's packages are installed by {@code docker/ensure-e2b-sdk.sh}
 * (it/pom.xml runs it before the suites). Each node test is one SDK call's contract; a failure
 * shows node's own report.
 */
class E2bSdkIT {

    private static final String BASE = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    private static final Path SDKS = Path.of(System.getProperty("dockyard.e2b-sdk", "/var/lib/dockyard/e2b-sdk"));
    private static final Path SUITES = Path.of(System.getProperty("user.dir")).resolve("src/test/node/e2b");
    private static final DockyardApi ADMIN = new DockyardApi();

    @Test
    void shouldPassTheSuiteOfTheCurrentSdk() throws Exception {
        run("2.51.0", "sdk.test.mjs");
    }

    @Test
    void shouldServeTheRoutesOfTheSdkBeforeV2() throws Exception {
        run("2.50.0", "sdk-v1.test.mjs");
    }

    /**
     * A template naming a warm pool whose members run the executor on Liberty: the sandbox is a
     * pool member, and envd's answers come from the WAR's JAX-RS face instead of the embedded one.
     */
    @Test
    void shouldServeEnvdFromAPoolOfTheLibertyExecutor() throws Exception {
        String pool = "e2b-liberty-" + UUID.randomUUID().toString().substring(0, 6);
        DockyardApi.Answer put = ADMIN.put("pools/" + pool, Json.createObjectBuilder().add("size", 1)
                .add("sandbox", Json.createObjectBuilder().add("executorServer", "liberty")).build());
        assertTrue(put.status() / 100 == 2, put.body());
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (ADMIN.get("pools/" + pool).json().getInt("ready") < 1 && System.nanoTime() < until) {
                Thread.sleep(250);
            }
            assertEquals(1, ADMIN.get("pools/" + pool).json().getInt("ready"), "the pool's member booted");
            run("2.51.0", "sdk-template.test.mjs", Map.of("E2B_TEMPLATE", pool));
            assertEquals(1, ADMIN.get("pools/" + pool).json().getInt("hits"), "the sandbox came from the pool");
        } finally {
            ADMIN.delete("pools/" + pool);
        }
    }

    private void run(String version, String suite) throws Exception {
        run(version, suite, Map.of());
    }

    private void run(String version, String suite, Map<String, String> more) throws Exception {
        Path module = SDKS.resolve(version).resolve("node_modules/e2b/dist/index.mjs");
        assertTrue(Files.isRegularFile(module), "no e2b@" + version + " at " + module + ": run docker/ensure-e2b-sdk.sh");
        ProcessBuilder node = new ProcessBuilder(SDKS.resolve("node").toString(), "--test", "--test-reporter=spec",
                "--test-concurrency=1", SUITES.resolve(suite).toString()).redirectErrorStream(true);
        node.environment().keySet().removeIf(name -> name.toLowerCase(Locale.ROOT).endsWith("_proxy")
                || name.startsWith("E2B_"));
        node.environment().put("E2B_API_URL", BASE + "/e2b");
        node.environment().put("E2B_SANDBOX_URL", RuntimeApi.SERVICES_URL + "/e2b");
        node.environment().put("E2B_API_KEY", e2bKey("e2b-sdk"));
        node.environment().put("E2B_OTHER_API_KEY", e2bKey("e2b-other"));
        node.environment().put("E2B_SDK", module.toString());
        node.environment().put("E2B_RUN", "run-" + UUID.randomUUID().toString().substring(0, 8));
        node.environment().putAll(more);
        Process process = node.start();
        String out;
        try {
            boolean ended = process.waitFor(240, TimeUnit.SECONDS);
            out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(ended, "the SDK's suite took over 240 s:\n" + out);
        } finally {
            process.destroyForcibly();
        }
        System.out.println(out);
        assertEquals(0, process.exitValue(), out);
        assertTrue(out.contains("ℹ fail 0") && !out.contains("ℹ pass 0"), out);
    }

    /** A user of its own with an E2B-shaped key ({@code e2b_<hex>}, which E2B's older SDKs insist on). */
    private static String e2bKey(String prefix) {
        DockyardApi user = ADMIN.newUser(prefix, "user");
        String userId = user.get("users/me").json().getString("userId");
        DockyardApi.Answer minted = user.post("users/" + userId + "/keys", Json.createObjectBuilder().add("kind", "e2b").build());
        assertEquals(201, minted.status(), minted.body());
        String key = minted.json().getString("apiKey");
        assertTrue(key.matches("e2b_[0-9a-f]+"), "an E2B-shaped key");
        return key;
    }
}
