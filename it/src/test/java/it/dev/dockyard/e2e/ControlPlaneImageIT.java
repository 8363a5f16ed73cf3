package it.dev.dockyard.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ControlPlane;
import it.dev.dockyard.support.ControlPlaneSettings;
import it.dev.dockyard.support.DockerCli;
import jakarta.json.Json;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The control plane's own image (docker/build-control-plane-image.sh) as docker/kubernetes/ runs it:
 * built from the offline base, run as a container on 127.0.0.1 with what docker/kubernetes/deployment.yaml
 * gives it — a read-only root filesystem, scratch space for its output and /tmp, a volume for its Derby
 * database, the admin key as a mounted secret file (never in the environment), no capabilities. The container is given
 * this machine's Docker socket only so that its default node ("local") is healthy and readiness is
 * what a working installation reports; no runtime is provisioned through it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ResourceLock(ControlPlane.OWN_SERVERS)
class ControlPlaneImageIT {

    private static final String CONTAINER = "dockyard-it-control-plane-image";
    private static final String VOLUME = "dockyard-it-control-plane-data";
    /** As every test server's ({@code ControlPlane}): a fresh boot on a busy 2-core machine can take minutes. */
    private static final Duration BOOT = Duration.ofSeconds(300);

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static String adminKey;
    private static Path secrets;
    private static String image;
    private static String base;

    @BeforeAll
    static void buildAndStart() throws Exception {
        Path root = Path.of(System.getProperty("dockyard.wlp")).resolve("../../../../..").normalize();
        image = build(root);
        adminKey = "it-image-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        secrets = secretVolume("dockyard.bootstrap.admin-key", adminKey);
        DockerCli.run("rm", "-f", "-v", CONTAINER);
        DockerCli.run("volume", "rm", VOLUME);
        // the image's own JVM_ARGS plus the test servers' JIT (C1 only): this suite tests what the image
        // is and keeps, not its JIT, and C2 compiling the warm-up doubled each of its two boots (measured
        // 2026-11-29, quiet: 69 CPU-s to the API with both compilers, 34 with C1 only) on a run whose
        // wall time is CPU-bound
        String jvmArgs = DockerCli.ok("image", "inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", image)
                .lines().filter(variable -> variable.startsWith("JVM_ARGS=")).findFirst().orElse("JVM_ARGS=")
                + " " + ControlPlaneSettings.TEST_JVM;
        String socketGroup = Files.getAttribute(Path.of("/var/run/docker.sock"), "unix:gid").toString();
        // the Deployment's mounts: emptyDirs for /tmp and the server's output, a volume for the database
        DockerCli.ok("run", "-d", "--name", CONTAINER, "--read-only", "--tmpfs", "/tmp",
                "--tmpfs", "/var/lib/dockyard/server:uid=1001,gid=1001", "--user", "1001:1001",
                "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "-v", VOLUME + ":/var/lib/dockyard/db", "-v", secrets + ":/etc/dockyard/secrets:ro",
                "-v", "/var/run/docker.sock:/var/run/docker.sock", "--group-add", socketGroup,
                "-e", "DOCKYARD_INSTANCE=it-image", "-e", jvmArgs,
                // its sandboxes would publish on the host's loopback, which this container cannot reach
                "-e", "DOCKYARD_WARM_UP_REHEARSAL=false", "-p", "127.0.0.1::9080", image);
        String published = DockerCli.ok("port", CONTAINER, "9080").lines().findFirst().orElseThrow();
        base = "http://127.0.0.1:" + published.substring(published.lastIndexOf(':') + 1);
        awaitApi();
    }

    @AfterAll
    static void remove() throws IOException {
        DockerCli.run("rm", "-f", "-v", CONTAINER);
        DockerCli.run("volume", "rm", VOLUME);
        if (secrets != null) {
            try (Stream<Path> files = Files.walk(secrets)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /**
     * A directory laid out as the kubelet lays out a Secret volume: the files in a timestamped
     * directory, {@code ..data} linking to it, and each key a link through {@code ..data}, readable by
     * the container's user (1001) as {@code defaultMode} and {@code fsGroup} make them.
     */
    private static Path secretVolume(String key, String value) throws IOException {
        Path volume = Files.createTempDirectory("dockyard-it-secrets");
        Path timestamped = Files.createDirectory(volume.resolve("..2026_01_01_00_00_00.000000001"));
        Files.writeString(timestamped.resolve(key), value);
        Files.createSymbolicLink(volume.resolve("..data"), timestamped.getFileName());
        Files.createSymbolicLink(volume.resolve(key), Path.of("..data", key));
        Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(timestamped, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(timestamped.resolve(key), PosixFilePermissions.fromString("rw-r--r--"));
        return volume;
    }

    @Test
    @Order(1)
    void shouldRunAsANonRootUserOnAReadOnlyRootFilesystem() {
        assertEquals("1001", DockerCli.ok("image", "inspect", "--format", "{{.Config.User}}", image));
        assertEquals("1001", DockerCli.ok("exec", CONTAINER, "id", "-u"));
        DockerCli.Result write = DockerCli.run("exec", CONTAINER, "touch", "/opt/dockyard/wlp/x");
        assertNotEquals(0, write.exitCode(), write.output());
        assertTrue(write.output().contains("Read-only file system"), write.output());
        // Debian's JRE, from the same offline base the sandbox image starts from
        assertTrue(DockerCli.ok("exec", CONTAINER, "java", "-version").contains("17."));
    }

    @Test
    @Order(2)
    void shouldAnswerTheProbesTheDeploymentUses() throws Exception {
        HttpResponse<String> live = call("GET", "/health/live", null, null);
        assertEquals(200, live.statusCode(), live.body());
        assertTrue(live.body().contains("\"UP\""), live.body());
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1))
                .until(() -> call("GET", "/health/ready", null, null).statusCode() == 200);
    }

    @Test
    @Order(3)
    void shouldServeTheApiWithTheAdminKeyFromAMountedFile() throws Exception {
        assertEquals(401, call("GET", "/api/v1/runtimes", null, null).statusCode());
        String userKey = createUser("image-user");
        HttpResponse<String> runtimes = call("GET", "/api/v1/runtimes", userKey, null);
        assertEquals(200, runtimes.statusCode(), runtimes.body());
        assertEquals(0, Json.createReader(new StringReader(runtimes.body())).readObject()
                .getJsonArray("runtimes").size());
    }

    @Test
    @Order(4)
    void shouldKeepTheAdminKeyOutOfTheContainersConfigurationAndLog() {
        String config = DockerCli.ok("inspect", CONTAINER);
        assertFalse(config.contains(adminKey), "the admin key is in docker inspect");
        assertFalse(DockerCli.ok("logs", CONTAINER).contains(adminKey), "the admin key is in the log");
    }

    @Test
    @Order(5)
    void shouldKeepItsDerbyDatabaseOnTheVolumeAcrossARestart() throws Exception {
        String userKey = createUser("image-survivor");
        DockerCli.ok("restart", "-t", "20", CONTAINER);
        String published = DockerCli.ok("port", CONTAINER, "9080").lines().findFirst().orElseThrow();
        base = "http://127.0.0.1:" + published.substring(published.lastIndexOf(':') + 1);
        awaitApi();
        HttpResponse<String> runtimes = call("GET", "/api/v1/runtimes", userKey, null);
        assertEquals(200, runtimes.statusCode(), "the key made before the restart: " + runtimes.body());
    }

    private static String createUser(String userId) throws Exception {
        HttpResponse<String> created = call("POST", "/api/v1/users", adminKey,
                Json.createObjectBuilder().add("userId", userId).add("role", "user").build().toString());
        assertEquals(201, created.statusCode(), created.body());
        return Json.createReader(new StringReader(created.body())).readObject().getString("apiKey");
    }

    private static String build(Path root) throws Exception {
        Process process = new ProcessBuilder("bash", root.resolve("docker/build-control-plane-image.sh").toString(),
                System.getProperty("dockyard.wlp")).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the control-plane image build did not finish in 10 min");
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, process.exitValue(), "docker/build-control-plane-image.sh failed: " + out);
        List<String> lines = out.lines().toList();
        String tag = lines.get(lines.size() - 1);
        assertTrue(tag.startsWith("dockyard/control-plane:"), tag);
        return tag;
    }

    /** Until the application answers (health answers before the application is deployed). */
    private static void awaitApi() {
        try {
            await().atMost(BOOT).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> call("GET", "/api/v1/runtimes", null, null).statusCode() == 401);
        } catch (ConditionTimeoutException slow) {
            throw new AssertionError("the control plane's container did not answer within " + BOOT + "; its log:\n"
                    + DockerCli.run("logs", "--tail", "40", CONTAINER).output(), slow);
        }
    }

    private static HttpResponse<String> call(String method, String path, String key, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            request.header("X-API-Key", key);
        }
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
