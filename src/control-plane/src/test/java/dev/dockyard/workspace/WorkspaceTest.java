package dev.dockyard.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import dev.dockyard.protocol.Truncation;
import dev.dockyard.runtime.RepositorySpec;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceTest {

    @TempDir
    Path sandbox;

    private static final RepositorySpec REPOSITORY = new RepositorySpec("https://git.example/team/app.git", null, null,
            null);

    /**
     * Microagents read through a real bash, with what the executor does to a static command's output:
     * trailing whitespace trimmed, the middle cut beyond 30,000 characters.
     */
    private List<Microagents.Microagent> readMicroagents() {
        Path repository = sandbox.resolve("app");
        Microagents microagents = new Microagents();
        microagents.commands = new WorkspaceSetup() {
            @Override
            String run(URI executor, String sessionKey, String what, String command, Duration timeout) {
                String local = command.replace(quote("/workspace/app"), quote(repository.toString()));
                try {
                    Process bash = new ProcessBuilder("bash", "-c", local).directory(sandbox.toFile())
                            .redirectErrorStream(true).start();
                    String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    if (!bash.waitFor(30, TimeUnit.SECONDS) || bash.exitValue() != 0) {
                        throw new BackendException(what + " failed: " + output);
                    }
                    return Truncation.middle(output.stripTrailing());
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        return microagents.of(URI.create("http://127.0.0.1:1/"), "key", REPOSITORY);
    }

    private void microagent(String path, String text) throws IOException {
        Path file = sandbox.resolve("app").resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    @Test
    void shouldReadMicroagentsWithTheirFrontMatter() throws IOException {
        microagent(".openhands/microagents/repo.md", "---\nname: repo-guide\ntype: repo\nagent: CodeActAgent\n---\n"
                + "Use make test.\n");
        microagent(".openhands/microagents/docker.md", "---\ntriggers:\n  - docker\n  - \"container\"\n---\n"
                + "# Docker\nNo daemon here.\n");
        microagent(".dockyard/microagents/plain.md", "Just text.\n");
        List<Microagents.Microagent> agents = readMicroagents();
        assertEquals(3, agents.size());
        assertEquals("docker", agents.get(0).name());
        assertEquals(List.of("docker", "container"), agents.get(0).triggers());
        assertEquals("knowledge", agents.get(0).type());
        assertEquals("# Docker\nNo daemon here.", agents.get(0).content());
        assertEquals("repo-guide", agents.get(1).name());
        assertEquals("repo", agents.get(1).type());
        assertEquals("CodeActAgent", agents.get(1).agent());
        assertEquals("Use make test.", agents.get(1).content());
        assertEquals("plain", agents.get(2).name());
        assertEquals(".dockyard/microagents/plain.md", agents.get(2).source());
        assertNull(agents.get(2).agent());
        assertEquals(List.of("a", "b"), Microagents.parse("x.md", "---\ntriggers: [a, 'b']\n---\nbody").triggers());
    }

    @Test
    void shouldReadAMicroagentLongerThanOneObservationWhole() throws IOException {
        // multi-byte characters, so that chunks end inside a character
        String body = IntStream.range(0, 4_000).mapToObj(i -> "line " + i + " é→ ok").collect(Collectors.joining("\n"));
        assertTrue(body.length() > 40_000, "length " + body.length());
        microagent(".openhands/microagents/big.md", "---\ntriggers: [big]\n---\n" + body + "\n");
        microagent(".openhands/microagents/small.md", "small\n");
        List<Microagents.Microagent> agents = readMicroagents();
        assertEquals(2, agents.size());
        assertEquals(body, agents.get(0).content());
        assertEquals(List.of("big"), agents.get(0).triggers());
        assertEquals("small", agents.get(1).content());
    }

    @Test
    void shouldCutAMicroagentOverTheMaximumWithAMarker() throws IOException {
        String body = "é".repeat(Microagents.MAX_FILE_BYTES / 2 + 10) + "tail";
        microagent(".openhands/microagents/huge.md", body);
        long size = body.getBytes(StandardCharsets.UTF_8).length;
        String content = readMicroagents().get(0).content();
        String marker = Microagents.cutMarker(".openhands/microagents/huge.md", size).strip();
        assertTrue(content.endsWith(marker), content.substring(content.length() - 200));
        assertEquals("é".repeat(Microagents.MAX_FILE_BYTES / 2), content.substring(0, content.length() - marker.length())
                .strip());
    }

    @Test
    void shouldRefuseRepositoriesThatWouldLeakOrMisbehave() {
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://user:tok@host/r.git", null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("ssh://host/r.git", null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/r.git", "-x", null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/r.git", "a..b", null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/r.git", null, null, "A-B"));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/a b.git", null, null, null));
        RepositorySpec ok = new RepositorySpec("https://git.example/team/app.git", "main", "feature/x", "GIT_TOKEN");
        assertEquals("/workspace/app", ok.directory("/workspace"));
        assertEquals(ok, RepositorySpec.fromJson(ok.toJson()));
        assertEquals("'it'\\''s'", WorkspaceSetup.quote("it's"));
    }
}
