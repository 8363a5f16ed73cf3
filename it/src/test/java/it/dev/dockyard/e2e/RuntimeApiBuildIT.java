package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * OpenHands' legacy {@code RemoteRuntimeBuilder} (openhands/runtime/builder/remote.py @d6fab190):
 * {@code GET /registry_prefix}, multipart {@code POST /build} with {@code context} = base64 text of a
 * tar.gz, {@code target_image} and repeated {@code tags}, then {@code GET /build_status} until
 * SUCCESS, then {@code /image_exists}. Built offline from the base image.
 */
class RuntimeApiBuildIT {

    private static final String BOUNDARY = "it-build-" + UUID.randomUUID();

    /** A tar.gz with one Dockerfile, as OpenHands' builder sends its context (then base64). */
    private static byte[] context(String dockerfile) throws IOException {
        byte[] content = dockerfile.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        byte[] header = new byte[512];
        put(header, 0, "Dockerfile");
        put(header, 100, "0000644");
        put(header, 108, "0000000");
        put(header, 116, "0000000");
        put(header, 124, String.format("%011o", content.length));
        put(header, 136, "00000000000");
        header[156] = '0';
        put(header, 257, "ustar");
        put(header, 263, "00");
        for (int i = 148; i < 156; i++) {
            header[i] = ' ';
        }
        int sum = 0;
        for (byte b : header) {
            sum += b & 0xff;
        }
        put(header, 148, String.format("%06o", sum) + "\0 ");
        tar.write(header);
        tar.write(content);
        tar.write(new byte[(512 - content.length % 512) % 512]);
        tar.write(new byte[1024]);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(tar.toByteArray());
        }
        return gz.toByteArray();
    }

    private static void put(byte[] header, int at, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, header, at, bytes.length);
    }

    private static byte[] form(byte[] tarGz, String target, String... tags) {
        StringBuilder body = new StringBuilder();
        body.append("--").append(BOUNDARY).append("\r\nContent-Disposition: form-data; name=\"context\"; "
                + "filename=\"context.tar.gz\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                .append(Base64.getEncoder().encodeToString(tarGz)).append("\r\n");
        body.append("--").append(BOUNDARY).append("\r\nContent-Disposition: form-data; name=\"target_image\"\r\n\r\n")
                .append(target).append("\r\n");
        for (String tag : tags) {
            body.append("--").append(BOUNDARY).append("\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\n")
                    .append(tag).append("\r\n");
        }
        body.append("--").append(BOUNDARY).append("--\r\n");
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static DockyardApi.Answer build(RuntimeApi api, byte[] form) {
        return api.postMultipart("/build", "multipart/form-data; boundary=" + BOUNDARY, form);
    }

    @Test
    void shouldBuildAClientsContextIntoTheRegistryPrefixAndNeverReplaceAnImage() throws Exception {
        RuntimeApi admin = new RuntimeApi(System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret"));
        String prefix = admin.get("/registry_prefix").json().getString("registry_prefix");
        String image = prefix + "/runtime:it-build-" + UUID.randomUUID().toString().substring(0, 8);
        byte[] tarGz = context("FROM dockyard/sandbox-base:bookworm\nRUN echo built-by-context > /built\n");
        try {
            RuntimeApi.User user = RuntimeApi.newUser("build");
            DockyardApi.Answer refused = build(user.runtimes(), form(tarGz, image));
            assertEquals(403, refused.status(), "builds are for admins by default: " + refused.body());
            assertTrue(RuntimeApi.detail(refused).contains("dockyard.images.scripts"), refused.body());

            DockyardApi.Answer outside = build(admin, form(tarGz, "dockyard/sandbox:latest"));
            assertEquals(400, outside.status(), "only the registry prefix's runtime repository: " + outside.body());

            DockyardApi.Answer started = build(admin, form(tarGz, image));
            assertEquals(200, started.status(), started.body());
            String buildId = started.json().getString("build_id");
            JsonObject[] status = new JsonObject[1];
            Awaitility.await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                status[0] = admin.get("/build_status?build_id=" + buildId).json();
                return !status[0].getString("status").equals("WORKING");
            });
            assertEquals("SUCCESS", status[0].getString("status"), status[0].toString());
            assertEquals(image, status[0].getString("image"));
            assertTrue(admin.get("/image_exists?image=" + RuntimeApi.encode(image)).json().getBoolean("exists"));
            // the build is its builder's (issue 26): another user neither sees nor starts it
            assertFalse(user.runtimes().get("/image_exists?image=" + RuntimeApi.encode(image)).json()
                    .getBoolean("exists"), "another user's build does not exist for them");
            DockyardApi.Answer foreign = user.runtimes().start(Json.createObjectBuilder().add("image", image)
                    .add("session_id", "it-build-" + UUID.randomUUID().toString().substring(0, 8)).build());
            assertEquals(400, foreign.status(), foreign.body());
            assertEquals("built-by-context", DockerCli.ok("run", "--rm", "--network", "none", image, "cat", "/built")
                    .strip());

            DockyardApi.Answer again = build(admin, form(tarGz, image));
            assertEquals(409, again.status(), "an existing image is never replaced: " + again.body());
            assertEquals(404, user.runtimes().get("/build_status?build_id=" + buildId).status(),
                    "another user's build is unknown");
        } finally {
            DockerCli.run("rmi", "-f", image);
        }
    }
}
