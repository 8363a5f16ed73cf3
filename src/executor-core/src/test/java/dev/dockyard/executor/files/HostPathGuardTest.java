package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard of a runtime on a host ({@link PathGuard#onHost}) against a corpus of names and paths:
 * traversal, absolute paths elsewhere, links out, NUL and control characters, devices, Windows
 * device names and unicode lookalikes. Real files and links in a temporary directory.
 */
class HostPathGuardTest {

    @TempDir
    Path root;

    private Path runtime;
    private PathGuard guard;

    @BeforeEach
    void plant() throws IOException {
        runtime = Files.createDirectories(root.resolve("rt-1/workspace"));
        Path outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        Files.createDirectories(runtime.resolve("inside"));
        Files.createSymbolicLink(runtime.resolve("out-link"), outside);
        Files.createSymbolicLink(runtime.resolve("secret-link"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(runtime.resolve("up-link"), Path.of(".."));
        Files.createSymbolicLink(runtime.resolve("dangling"), outside.resolve("not-yet"));
        Files.createSymbolicLink(runtime.resolve("dev-link"), Path.of("/dev/null"));
        Files.createSymbolicLink(runtime.resolve("ok-link"), runtime.resolve("inside"));
        guard = PathGuard.onHost(runtime);
    }

    private static final List<String> ESCAPES = List.of(
            "/etc/passwd", "/dev/null", "/dev/zero", "/dev/tty", "/proc/self/environ", "/proc/self/root/etc/passwd",
            "../outside/secret.txt", "../../etc/passwd", "inside/../../outside/secret.txt", "//etc/passwd",
            "/./etc/passwd", "out-link/secret.txt", "secret-link", "up-link/outside/secret.txt", "dangling",
            "dangling/new.txt", "ok-link/../../outside/secret.txt", "dev-link", "../workspace-evil/x.txt");

    private static final List<String> BAD_NAMES = List.of(
            "inside\u0000/../../etc/passwd", "passwd\u0000.txt", "a\nb.txt", "a\rb", "tab\there", "bell\u0007",
            "del\u007f", "c1\u0085", "rlo\u202etxt.exe", "zero\u200bwidth", "bom\ufeff", "..\u2215..\u2215etc",
            "a\u2044b", "a\uff0fb", "a\uff3cb", "..\\..\\etc\\passwd", "dots\u2024\u2024", "two\u2025dots",
            "full\uff0estop", "small\ufe52stop", "CON", "con.txt", "Nul", "aux.tar.gz", "PRN", "COM1", "lpt9.log",
            "COM\u00b9", "CONOUT$", "inside/NUL", "trailing.", "trailing ", "inside/x. ");

    @Test
    void shouldRefuseEveryPathThatLeavesTheRuntimesDirectory() {
        List<String> escaped = new ArrayList<>();
        for (String path : ESCAPES) {
            try {
                Path allowed = guard.check(path, runtime);
                escaped.add(path + " -> " + allowed);
            } catch (PathGuard.PathRefusedException refused) {
                // expected
            }
        }
        assertEquals(List.of(), escaped);
    }

    @Test
    void shouldRefuseControlCharactersDevicesAndLookalikes() {
        List<String> accepted = new ArrayList<>();
        for (String name : BAD_NAMES) {
            try {
                guard.check(name, runtime);
                accepted.add(name);
            } catch (PathGuard.PathRefusedException refused) {
                assertTrue(refused.getMessage().length() > 10, refused.getMessage());
            }
        }
        assertEquals(List.of(), accepted);
    }

    @Test
    void shouldAcceptOrdinaryNamesInside() throws IOException {
        Path real = runtime.toRealPath();
        for (String name : List.of("a.txt", "inside/b.py", "ok-link/c.md", "inside/../d", "ünïcödé.txt", "日本.txt",
                ".hidden", "con-tent.txt", "console.log", "com10", "..foo", "a..b", runtime + "/inside/e")) {
            Path allowed = guard.check(name, runtime);
            assertTrue(allowed.startsWith(real) || allowed.startsWith(runtime), name + " -> " + allowed);
        }
    }

    @Test
    void shouldJudgeOnlyTheNamesBelowTheRuntimesDirectory() throws IOException {
        Path odd = Files.createDirectories(root.resolve("COM1 ./rt/workspace"));
        PathGuard oddGuard = PathGuard.onHost(odd);
        assertEquals(odd.toRealPath().resolve("a.txt"), oddGuard.check(odd.toRealPath() + "/a.txt", odd));
        assertThrows(PathGuard.PathRefusedException.class, () -> oddGuard.check(odd.toRealPath() + "/NUL", odd));
    }

    @Test
    void shouldStayConfinedWhateverTheFileAccessPolicySays() {
        guard.allowAnywhere(true);
        assertThrows(PathGuard.PathRefusedException.class, () -> guard.check("/etc/passwd", runtime));
    }

    @Test
    void shouldRefuseSpecialFilesInside() throws Exception {
        Path fifo = runtime.resolve("pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        assertThrows(PathGuard.PathRefusedException.class, () -> guard.check("pipe", runtime));
    }

    @Test
    void shouldLeaveTheSandboxGuardAsItWas() {
        PathGuard sandbox = new PathGuard(runtime, false);
        assertEquals(runtime.resolve("CON").normalize().toString(), sandbox.check("CON", runtime).toString());
        sandbox.allowAnywhere(true);
        assertEquals("/etc/passwd", sandbox.check("/etc/passwd", runtime).toString());
    }
}
