package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's walk-through with curl, run as a reader would run it: the code block is taken from
 * README.md as it is and given to bash, with only the control plane's address changed to the test
 * server's and the admin key file where the block reads it (a HOME of the test's own). So the front
 * door's commands cannot drift from what the API answers.
 */
class ReadmeWalkThroughIT {

    private static final String BASE = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    private static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final Path README = Path.of(System.getProperty("user.dir")).resolve("../README.md").normalize();

    @TempDir
    Path home;

    @Test
    void shouldAnswerTheWalkThroughAsTheReadmeSays() throws Exception {
        String block = walkThrough(Files.readString(README));
        assertTrue(block.contains("KEY=$(cat ~/.dockyard/admin-key)"), "the block reads the key where the start writes it");
        assertTrue(block.contains("http://127.0.0.1:9080/api/v1"), "the block names the default address");
        String script = "set -eu\n" + block.replace("http://127.0.0.1:9080", BASE)
                .replace("/tmp/runtime.json", home.resolve("runtime.json").toString());
        Path keyFile = Files.createDirectories(home.resolve(".dockyard")).resolve("admin-key");
        Files.writeString(keyFile, ADMIN_KEY);
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));

        ProcessBuilder bash = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true);
        bash.environment().put("HOME", home.toString());
        Process run = bash.start();
        assertTrue(run.waitFor(150, TimeUnit.SECONDS), "the walk-through took over 150 s");
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, run.exitValue(), out);

        // provisioned READY, ran echo in the shell, wrote then read the file, deleted with a 204
        assertTrue(out.contains("\"status\":\"READY\""), out);
        assertTrue(out.contains("\"content\":\"hello"), out);
        assertTrue(out.contains("\"exit_code\":0"), out);
        assertTrue(out.contains("hi there"), out);
        List<String> lines = out.strip().lines().toList();
        assertEquals("204", lines.get(lines.size() - 1), out);
    }

    /** The bash block under "## Walk-through with curl". */
    static String walkThrough(String readme) throws IOException {
        Matcher block = Pattern.compile("## Walk-through with curl.*?```bash\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        if (!block.find()) {
            throw new IOException("README.md has no bash block under '## Walk-through with curl'");
        }
        return block.group(1);
    }
}
