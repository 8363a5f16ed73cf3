package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the engine scripts' libraries (docker/lib) the way ensure-engine.sh sources them: bash with
 * {@code set -euo pipefail} and a {@code log} that prints, in a directory of the test's own.
 */
final class EngineScripts {

    private static final Path LIBRARIES = Path.of("../../docker/lib").toAbsolutePath().normalize();

    private EngineScripts() {
    }

    /**
     * Sources {@code libraries} (file names under docker/lib, in order) and runs {@code script} in
     * {@code dir} under {@code env}'s arguments (as the {@code env} command takes them); its output
     * (stdout and stderr), failing on a non-zero exit.
     */
    static String bash(Path dir, List<String> env, List<String> libraries, String script) throws Exception {
        List<String> command = new ArrayList<>(List.of("env"));
        command.addAll(env);
        StringBuilder sourced = new StringBuilder();
        for (String library : libraries) {
            sourced.append(". ").append(LIBRARIES.resolve(library)).append("; ");
        }
        command.addAll(List.of("bash", "-c", "set -euo pipefail; log() { echo \"$*\"; }; " + sourced + script));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "bash finished");
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), out);
        return out;
    }
}
