package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A traversal corpus against the executor's file actions: every path here is an attempt to read,
 * write or edit outside /workspace. Zero may succeed.
 */
class PathConfinementIT extends SandboxTest {

    private static final String SECRET = "outside-secret-content";

    /** Attempts that must all stay inside the workspace (or be refused), from /workspace unless said. */
    static final List<String> CORPUS = List.of(
            "/etc/passwd",
            "/etc/shadow",
            "/tmp/outside/secret.txt",
            "/workspace/../etc/passwd",
            "/workspace/./../etc/passwd",
            "/workspace/inside/../../etc/passwd",
            "/workspace/inside/../../tmp/outside/secret.txt",
            "../etc/passwd",
            "../../../../../../etc/passwd",
            "inside/../../etc/passwd",
            "//etc/passwd",
            "/./etc/passwd",
            "/workspace/../workspace-evil/x.txt",
            "/workspace/tmp-link/outside/secret.txt",
            "/workspace/secret-link",
            "/workspace/up-link/etc/passwd",
            "/workspace/up-link/tmp/outside/secret.txt",
            "/workspace/deep/etc/passwd",
            "/workspace/dangling",
            "/workspace/dangling/new.txt",
            "/workspace/ok-link/../../etc/passwd",
            "/workspace/inside/../inside/../../etc/passwd",
            "/proc/self/root/etc/passwd",
            "/proc/self/environ",
            "/proc/1/cmdline",
            "/home/dockyard/.bashrc",
            "/dockyard/bin/start-executor",
            "/dev/null",
            "/workspace/inside\u0000/../../etc/passwd",
            "/etc/passwd\u0000.txt",
            "/workspace/inside\n/../../etc/passwd",
            "/workspace/%2e%2e/%2e%2e/etc/passwd",
            "/workspace/..%2f..%2fetc/passwd",
            "/workspace/..\\..\\etc\\passwd",
            "/workspace/..\u2215..\u2215etc\u2215passwd",
            "/workspace/tmp-link/../etc/passwd");

    @BeforeAll
    void plantLinksAndSecrets() {
        sandbox.run(w("mkdir -p /tmp/outside /workspace/inside /workspace/deep && echo ") + SECRET
                + w(" > /tmp/outside/secret.txt && ln -s /tmp /workspace/tmp-link && ln -s /tmp/outside/secret.txt ")
                + w("/workspace/secret-link && ln -s ../ /workspace/up-link && ln -s /etc /workspace/deep/etc && ")
                + w("ln -s /workspace/inside /workspace/ok-link && ln -s /tmp/outside/created-by-escape ")
                + w("/workspace/dangling && touch /tmp/marker"));
    }

    @Test
    void shouldLetNoCorpusPathEscapeTheWorkspace() {
        assertTrue(CORPUS.size() >= 30, "corpus of " + CORPUS.size());
        List<String> escapes = new ArrayList<>();
        for (String corpusPath : CORPUS) {
            String path = w(corpusPath);
            JsonObject read = sandbox.execute(Sandbox.action("read", Sandbox.args().add("path", path)));
            String content = read.getString("content");
            if (content.contains("root:") || content.contains(SECRET) || content.contains("PATH=")
                    || content.contains("dockyard executor") || content.contains("export")) {
                escapes.add("read " + path);
            }
            sandbox.execute(Sandbox.action("write", Sandbox.args().add("path", path).add("content", "PWNED")));
            sandbox.execute(Sandbox.action("edit", Sandbox.args().add("command", "create").add("path", path)
                    .add("file_text", "PWNED")));
            JsonObject view = sandbox.execute(Sandbox.action("read", Sandbox.args().add("path", path)
                    .add("impl_source", "oh_aci")));
            if (view.getString("content").contains("root:") || view.getString("content").contains(SECRET)) {
                escapes.add("view " + path);
            }
        }
        // nothing outside the workspace was created or changed by any of those writes
        String changed = changedOutsideTheWorkspace();
        for (String line : changed.split("\n")) {
            if (!line.isBlank() && !line.equals(SECRET)) {
                escapes.add("changed " + line);
            }
        }
        assertEquals(List.of(), escapes, "escapes out of " + CORPUS.size() + " traversal attempts");
    }

    /**
     * The files outside the workspace created or changed since the links were planted, and those
     * holding the corpus' content, one a line; then the planted secret, which must be as it was.
     */
    String changedOutsideTheWorkspace() {
        return sandbox.execute(Sandbox.action("run", Sandbox.args().add("is_static", true).add("command",
                w("find / -xdev -newer /tmp/marker -type f -not -path '/workspace/*' -not -path '/proc/*' ")
                        + "-not -path '/dockyard/wlp/usr/servers/executor/*' -not -path '/sys/*' 2>/dev/null; "
                        + "grep -rl PWNED /etc /tmp /home 2>/dev/null; cat /tmp/outside/secret.txt"))).getString("content");
    }

    @Test
    void shouldRefuseRelativePathsWhenTheShellIsOutsideTheWorkspace() {
        sandbox.run("cd /etc");
        JsonObject obs = sandbox.execute(Sandbox.action("read", Sandbox.args().add("path", "passwd")));
        assertEquals("You're not allowed to access this path: passwd. You can only access paths inside the "
                + "workspace.", obs.getString("content"));
        sandbox.run(w("cd /workspace"));
    }

    @Test
    void shouldStillAllowLinksThatStayInside() {
        sandbox.execute(Sandbox.action("write", Sandbox.args().add("path", w("/workspace/ok-link/fine.txt"))
                .add("content", "fine")));
        assertEquals("fine\n", sandbox.execute(Sandbox.action("read", Sandbox.args()
                .add("path", w("/workspace/inside/fine.txt")))).getString("content"));
    }
}
