package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The runtime image builder on the real engine: the reuse chain's four paths, reuse that never
 * crosses two tenants' extra dependencies, who may run build scripts, a base without Java, one
 * build for concurrent provisions, and clear failures. The test control plane tags into
 * {@code dockyard/it-runtime} and builds with a copy of the executor bundle that these tests may
 * change; everything tagged there is removed at the end. It holds {@link #RUNTIME_IMAGES}: a suite
 * building runtime images from the same base meanwhile would take the paths it asserts (and lose
 * its images at the end).
 */
@ResourceLock(ImageBuilderIT.RUNTIME_IMAGES)
class ImageBuilderIT {

    /** The lock of suites that build runtime images of the offline base into the tests' repository. */
    static final String RUNTIME_IMAGES = "runtime-images";

    private static final DockyardApi API = new DockyardApi();
    private static final String BASE = "dockyard/sandbox-base:bookworm";
    private static final String NO_JAVA_BASE = "dockyard/it-base-nojava:latest";
    private static final String REPOSITORY = "dockyard/it-runtime";
    private static final Path BUNDLE = Path.of(System.getProperty("dockyard.bundle", "target/executor-bundle"));

    @BeforeAll
    static void baseWithoutJava() throws IOException {
        // what a run stopped half-way left: an unchanged build makes the same bundle (hash, source
        // tag), so its images would be found where these tests expect a build
        removeWhatWasBuilt();
        // the offline base minus every JDK/JRE package: the runtime image must bring its own Java
        Path dir = Files.createTempDirectory("it-base");
        Files.writeString(dir.resolve("Dockerfile"), "FROM " + BASE + "\nRUN apt-get purge -y -q 'openjdk-*' "
                + "ca-certificates-java && apt-get autoremove -y -q --purge && rm -rf /usr/lib/jvm\n");
        DockerCli.ok("build", "-q", "-t", NO_JAVA_BASE, dir.toString());
        DockerCli.Result java = DockerCli.run("run", "--rm", "--entrypoint", "/bin/sh", NO_JAVA_BASE, "-c",
                "command -v java");
        assertTrue(java.exitCode() != 0 && java.output().isBlank(), "the base must have no java: " + java.output());
    }

    @AfterAll
    static void removeWhatWasBuilt() {
        DockerCli.removeRepository(REPOSITORY);
        DockerCli.run("rmi", NO_JAVA_BASE);
        // runtime images these tests and the image scripts left untagged (a moved lock tag, a replaced build)
        DockerCli.run("image", "prune", "-f", "--filter", "label=dev.dockyard.runtime-image=true");
    }

    private static JsonObject submit(JsonObject body) {
        DockyardApi.Answer answer = API.post("images/builds", body);
        assertEquals(202, answer.status(), answer.body());
        return answer.json();
    }

    private static JsonObject finished(JsonObject build) {
        String id = build.getString("id");
        Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(250))
                .until(() -> !API.get("images/builds/" + id).json().getString("status").equals("RUNNING"));
        return API.get("images/builds/" + id).json();
    }

    private static JsonObject build(JsonObject body) {
        JsonObject done = finished(submit(body));
        assertEquals("SUCCEEDED", done.getString("status"), done.toString());
        return done;
    }

    @Test
    void shouldBuildFromTheBaseOnceAndThenFindTheSourceTag() {
        JsonObject first = build(Json.createObjectBuilder().add("baseImage", BASE).add("force", true).build());
        assertEquals("BASE", first.getString("path"));
        JsonObject tags = first.getJsonObject("tags");
        String image = tags.getString("source");
        assertTrue(image.startsWith(REPOSITORY + ":dy_v"), image);
        assertTrue(tags.getString("versioned").endsWith("_dockyard_s_sandbox-base_t_bookworm"), tags.toString());
        String id = DockerCli.inspect(image, "{{.Id}}");
        assertEquals(id, DockerCli.inspect(tags.getString("lock"), "{{.Id}}"));
        assertEquals(id, DockerCli.inspect(tags.getString("versioned"), "{{.Id}}"));
        assertEquals("true", DockerCli.inspect(image, "{{index .Config.Labels \"dev.dockyard.runtime-image\"}}"));
        System.out.printf("image build, path BASE: %d ms, image %s bytes%n", first.getInt("durationMs"),
                DockerCli.inspect(image, "{{.Size}}"));

        JsonObject again = build(Json.createObjectBuilder().add("baseImage", BASE).build());
        assertEquals("CACHED", again.getString("path"));
        assertEquals(image, again.getString("image"));
        assertTrue(again.getInt("durationMs") < 1000, again.toString());
        System.out.printf("image build, path CACHED: %d ms%n", again.getInt("durationMs"));

        JsonObject listed = API.get("images").json();
        assertTrue(listed.getJsonArray("images").stream().map(JsonObject.class::cast)
                .anyMatch(i -> i.getJsonArray("tags").getString(0).startsWith(REPOSITORY)
                        && BASE.equals(i.getString("baseImage", ""))), listed.toString());
        JsonObject exists = API.get("images/exists?image=" + image).json();
        assertTrue(exists.getBoolean("exists") && exists.getBoolean("runtimeImage"), exists.toString());
        assertFalse(API.get("images/exists?image=dockyard/absent:none").json().getBoolean("exists"));
    }

    @Test
    void shouldRebuildOnlyTheBundleLayerWhenTheBundleChanged() throws Exception {
        JsonObject original = build(Json.createObjectBuilder().add("baseImage", BASE).build());
        Path marker = BUNDLE.resolve("bin/it-bundle-change");
        Files.writeString(marker, UUID.randomUUID().toString());
        try {
            JsonObject changed = build(Json.createObjectBuilder().add("baseImage", BASE).build());
            assertEquals("LOCK", changed.getString("path"), changed.toString());
            assertEquals(original.getJsonObject("tags").getString("lock"), changed.getJsonObject("tags").getString("lock"));
            assertNotEquals(original.getString("image"), changed.getString("image"));
            // built on the lock image: every layer of the original image is reused as it is
            String before = layers(original.getString("image"));
            String after = layers(changed.getString("image"));
            assertTrue(after.startsWith(before.substring(0, before.length() - 1)), before + "\n" + after);
            System.out.printf("image build, path LOCK: %d ms%n", changed.getInt("durationMs"));
        } finally {
            Files.delete(marker);
        }
        JsonObject back = build(Json.createObjectBuilder().add("baseImage", BASE).build());
        assertEquals(original.getString("image"), back.getString("image"));
    }

    private static String layers(String image) {
        return DockerCli.inspect(image, "{{json .RootFS.Layers}}");
    }

    @Test
    void shouldStartANewLockWhenTheExtraDependenciesChange() {
        JsonObject plain = build(Json.createObjectBuilder().add("baseImage", BASE).build());
        JsonObject extra = build(Json.createObjectBuilder().add("baseImage", BASE)
                .add("extraDeps", Json.createObjectBuilder().add("apt", Json.createArrayBuilder().add("jq"))
                        .add("script", "echo extra > /etc/dockyard-it-extra")).build());
        assertEquals("VERSIONED", extra.getString("path"), extra.toString());
        assertEquals(plain.getJsonObject("tags").getString("versioned"), extra.getJsonObject("tags").getString("versioned"));
        assertNotEquals(plain.getJsonObject("tags").getString("lock"), extra.getJsonObject("tags").getString("lock"));
        DockerCli.Result jq = DockerCli.run("run", "--rm", "--entrypoint", "/bin/sh", extra.getString("image"), "-c",
                "jq --version && cat /etc/dockyard-it-extra");
        assertEquals(0, jq.exitCode(), jq.output());
        assertTrue(jq.output().contains("extra"), jq.output());
        System.out.printf("image build, path VERSIONED (+ apt jq): %d ms%n", extra.getInt("durationMs"));
    }

    @Test
    void shouldNeverBuildOneTenantsScriptIntoAnothersImage() {
        JsonObject plain = build(Json.createObjectBuilder().add("baseImage", BASE).build());
        String versioned = plain.getJsonObject("tags").getString("versioned");
        String cleanId = DockerCli.inspect(versioned, "{{.Id}}");
        List<String> clean = layerList(versioned);
        String run = UUID.randomUUID().toString();
        // two tenants' extra dependencies, fresh for this run: nothing of theirs is tagged yet
        JsonObject a = build(Json.createObjectBuilder().add("baseImage", BASE).add("extraDeps", Json
                .createObjectBuilder().add("script", "echo " + run + " > /opt/a-marker")).build());
        JsonObject b = build(Json.createObjectBuilder().add("baseImage", BASE).add("extraDeps", Json
                .createObjectBuilder().add("script", "echo " + run + " > /opt/b-marker")).build());
        assertEquals("VERSIONED", b.getString("path"), b.toString());

        List<String> shared = new ArrayList<>(layerList(a.getString("image")));
        shared.retainAll(layerList(b.getString("image")));
        shared.removeAll(clean);
        assertEquals(List.of(), shared, "B's image holds layers of A's that B never asked for");
        DockerCli.Result markers = DockerCli.run("run", "--rm", "--entrypoint", "/bin/sh", b.getString("image"), "-c",
                "for f in a b; do if [ -e /opt/$f-marker ]; then echo $f-present; else echo $f-absent; fi; done");
        assertEquals("a-absent\nb-present", markers.output().strip(), "what B's image holds of A's and its own");
        assertEquals(cleanId, DockerCli.inspect(versioned, "{{.Id}}"),
                "a build with extra dependencies must leave the clean versioned image where it was");
        System.out.printf("image build, path %s (+ script, on the clean versioned image): %d ms%n", b.getString("path"),
                b.getInt("durationMs"));
    }

    private static List<String> layerList(String image) {
        return Json.createReader(new StringReader(layers(image))).readArray().stream()
                .map(v -> ((JsonString) v).getString()).toList();
    }

    @Test
    void shouldRefuseAUsersBuildScriptUnlessTheSettingAllowsIt() {
        String userKey = API.post("users", Json.createObjectBuilder().add("userId", "images-script-"
                + UUID.randomUUID().toString().substring(0, 8)).build()).json().getString("apiKey");
        DockyardApi user = API.withKey(userKey);
        DockyardApi.Answer refused = user.provision(Json.createObjectBuilder().add("conversationId", "it-image-script-"
                + UUID.randomUUID()).add("sandbox", Json.createObjectBuilder().add("image", BASE).add("extraDeps",
                Json.createObjectBuilder().add("script", "touch /opt/user-was-root"))).build(), 0);
        try {
            assertEquals(403, refused.status(), refused.body());
            assertTrue(refused.contentType().startsWith("application/problem+json"), refused.contentType());
            assertTrue(refused.json().getString("detail").contains("dockyard.images.scripts"), refused.body());
            assertEquals(0, user.get("runtimes").json().getJsonArray("runtimes").size(), "nothing was provisioned");
        } finally {
            if (refused.status() == 202) {
                API.delete("runtimes/" + refused.json().getString("id"));
            }
        }
    }

    @Test
    void shouldProvisionOnABaseWithoutJavaWithOneBuildForConcurrentRequests() throws Exception {
        // a fresh source tag for this run: a script of its own
        JsonObject extraDeps = Json.createObjectBuilder().add("script", "echo " + UUID.randomUUID()
                + " > /etc/dockyard-it-run").build();
        List<String> ids = new ArrayList<>();
        List<CompletableFuture<DockyardApi.Answer>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                // the second on Liberty: the image is trained for the node's server (embedded) only,
                // and the other server still boots on it, without a class archive
                JsonObjectBuilder sandbox = Json.createObjectBuilder().add("image", NO_JAVA_BASE).add("extraDeps", extraDeps);
                if (i == 1) {
                    sandbox.add("executorServer", "liberty");
                }
                JsonObject body = Json.createObjectBuilder().add("conversationId", "it-image-" + UUID.randomUUID())
                        .add("sandbox", sandbox).build();
                answers.add(CompletableFuture.supplyAsync(() -> API.provision(body, 0)));
            }
            for (CompletableFuture<DockyardApi.Answer> answer : answers) {
                DockyardApi.Answer a = answer.get();
                assertEquals(202, a.status(), a.body());
                ids.add(a.json().getString("id"));
            }
            List<String> progress = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> stream = CompletableFuture.runAsync(() -> follow(ids.get(0), progress));
            for (String id : ids) {
                Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(250))
                        .until(() -> !API.get("runtimes/" + id).json().getString("status").matches(
                                "STARTING_RUNTIME|BUILDING_RUNTIME|RUNTIME_STARTED"));
            }
            List<String> builds = new ArrayList<>();
            String runtimeImage = null;
            for (String id : ids) {
                JsonObject runtime = API.get("runtimes/" + id).json();
                assertEquals("READY", runtime.getString("status"), runtime.toString());
                runtimeImage = runtime.getString("runtimeImage");
                assertTrue(runtimeImage.startsWith(REPOSITORY + ":"), runtimeImage);
                String history = String.join("\n", events(id));
                Matcher build = Pattern.compile("\\(build (build-[0-9a-f-]+)\\)")
                        .matcher(history);
                assertTrue(build.find(), history);
                builds.add(build.group(1));
            }
            assertEquals(1, builds.stream().distinct().count(), "one build for both: " + builds);
            stream.get(30, TimeUnit.SECONDS);
            assertTrue(progress.stream().anyMatch(p -> p.contains("\"line\":\"Step ")), progress.toString());

            for (String id : ids) {
                JsonObject java = API.act(id, DockyardApi.run("command -v java || echo no java; echo $((6 * 7))"));
                assertEquals("no java\n42", java.getString("content").strip());
            }
            assertEquals("liberty", API.get("runtimes/" + ids.get(1)).json().getJsonObject("sandbox")
                    .getString("executorServer"));
            // what the build trained: the node's (embedded) server's archive, not Liberty's
            assertEquals("trained: embedded", DockerCli.ok("run", "--rm", "--entrypoint", "/bin/sh", runtimeImage, "-c",
                    "a=/dockyard/executor; l=/dockyard/wlp/usr/servers/executor; echo trained:"
                            + " $(test -s $a/executor.aot -o -s $a/executor.jsa && echo embedded)"
                            + " $(test -s $l/executor.aot -o -s $l/executor.jsa && echo liberty)").strip());
            assertEquals(List.of(runtimeImage), ids.stream().map(id -> DockerCli.inspect("dockyard-" + id,
                    "{{.Config.Image}}")).distinct().toList());
        } finally {
            ids.forEach(id -> API.delete("runtimes/" + id));
        }
    }

    /** The runtime's {@code progress} events (their data lines), read until READY or ERROR. */
    private static void follow(String runtimeId, List<String> progress) {
        stream(runtimeId, Duration.ofMinutes(5), (event, data) -> {
            if (event.equals("progress")) {
                progress.add(data);
            }
        });
    }

    /** The runtime's {@code status} events (their data lines), history first, until READY or ERROR. */
    private static List<String> events(String runtimeId) {
        List<String> lines = new ArrayList<>();
        stream(runtimeId, Duration.ofSeconds(30), (event, data) -> {
            if (event.equals("status")) {
                lines.add(data);
            }
        });
        return lines;
    }

    private static void stream(String runtimeId, Duration timeout, BiConsumer<String, String> each) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(System.getProperty("dockyard.url",
                        "http://127.0.0.1:19080") + "/api/v1/runtimes/" + runtimeId + "/events"))
                .header("X-API-Key", System.getProperty("dockyard.admin-key")).timeout(timeout).build();
        try {
            HttpResponse<Stream<String>> response = HttpClient.newHttpClient().send(request,
                    HttpResponse.BodyHandlers.ofLines());
            try (Stream<String> lines = response.body()) {
                String event = "";
                for (String line : (Iterable<String>) lines::iterator) {
                    if (line.startsWith("event:")) {
                        event = line.substring(6).strip();
                    } else if (line.startsWith("data:")) {
                        each.accept(event, line);
                        if (event.equals("status") && (line.contains("\"status\":\"READY\"")
                                || line.contains("\"status\":\"ERROR\""))) {
                            return;
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void shouldFailClearly() {
        assertEquals(400, API.post("images/builds", Json.createObjectBuilder().add("baseImage", "Not An Image!").build())
                .status());
        DockyardApi.Answer missing = API.post("images/builds", Json.createObjectBuilder()
                .add("baseImage", "dockyard/absent-base:none").build());
        assertEquals(400, missing.status(), missing.body());
        assertTrue(missing.json().getString("detail").contains("dockyard/absent-base:none"), missing.body());
        assertEquals(400, API.post("images/builds", Json.createObjectBuilder().add("baseImage", BASE)
                .add("extraDeps", Json.createObjectBuilder().add("apt", Json.createArrayBuilder().add("jq; rm -rf /")))
                .build()).status());
        assertEquals(404, API.get("images/builds/build-unknown").status());
        String userKey = API.post("users", Json.createObjectBuilder().add("userId", "images-user-"
                + UUID.randomUUID().toString().substring(0, 8)).build()).json().getString("apiKey");
        assertEquals(403, API.withKey(userKey).post("images/builds", Json.createObjectBuilder().add("baseImage", BASE)
                .build()).status());

        JsonObject broken = finished(submit(Json.createObjectBuilder().add("baseImage", BASE)
                .add("extraDeps", Json.createObjectBuilder().add("script", "echo about to fail; exit 3")).build()));
        assertEquals("FAILED", broken.getString("status"), broken.toString());
        assertTrue(broken.getString("error").contains("about to fail"), broken.toString());

        DockyardApi.Answer runtime = API.provision(Json.createObjectBuilder().add("conversationId",
                "it-image-broken-" + UUID.randomUUID()).add("sandbox", Json.createObjectBuilder().add("image", BASE)
                .add("extraDeps", Json.createObjectBuilder().add("script", "echo about to fail; exit 3"))).build(), 300);
        JsonObject failed = runtime.json();
        try {
            assertEquals("ERROR", failed.getString("status"), failed.toString());
            assertTrue(failed.getString("statusMessage").startsWith("Provisioning failed at step 'image'"),
                    failed.getString("statusMessage"));
            assertTrue(failed.getString("statusMessage").contains("about to fail"), failed.getString("statusMessage"));
            assertEquals(List.of(), DockerCli.containersLabelled("dev.dockyard.runtime-id=" + failed.getString("id")));
        } finally {
            API.delete("runtimes/" + failed.getString("id"));
        }
    }
}
