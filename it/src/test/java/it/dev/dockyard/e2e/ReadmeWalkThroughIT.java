package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockyardApi;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
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
    private static final DockyardApi ADMIN = new DockyardApi();
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
        Files.writeString(keyFile, ADMIN.key());
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));

        ProcessBuilder bash = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true);
        bash.environment().put("HOME", home.toString());
        // curl would send the key to a proxy named in the environment: only the test server may see it
        bash.environment().keySet().removeIf(name -> name.toLowerCase(Locale.ROOT).endsWith("_proxy"));
        Process run = bash.start();
        String out;
        try {
            assertTrue(run.waitFor(150, TimeUnit.SECONDS), "the walk-through took over 150 s");
            out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            run.destroyForcibly();
            deleteWhatItLeft();
        }
        assertEquals(0, run.exitValue(), out);

        // provisioned READY, ran echo in the shell, wrote then read the file, deleted with a 204 (the
        // answers carry no newline: the delete's status ends the output)
        assertTrue(out.contains("\"status\":\"READY\""), out);
        assertTrue(out.contains("\"content\":\"hello"), out);
        assertTrue(out.contains("\"exit_code\":0"), out);
        assertTrue(out.contains("hi there"), out);
        assertTrue(out.strip().endsWith("}204"), out);
    }

    /** The walk-through's runtime, when a failure left it on the shared server (a second delete is a 404). */
    private void deleteWhatItLeft() throws IOException {
        Path answer = home.resolve("runtime.json");
        Matcher id = Pattern.compile("^\\{\"id\":\"([^\"]+)\"").matcher(Files.exists(answer) ? Files.readString(answer) : "");
        if (id.find()) {
            ADMIN.delete("runtimes/" + id.group(1));
        }
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
