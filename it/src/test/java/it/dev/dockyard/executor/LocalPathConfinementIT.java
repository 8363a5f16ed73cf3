package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.LocalNode;
import it.dev.dockyard.support.Sandbox;
import jakarta.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PathConfinementIT} on a runtime of the local backend: the same corpus of reads, writes,
 * edits and views, which must all stay in the runtime's workspace directory.
 *
 * <p>One difference, in how changes are found: on a host, other processes change files while the
 * suite runs, so the scan for files changed outside the workspace looks at those the sandbox's
 * user wrote (every file the executor writes is that user's), and leaves out the runtime's own
 * Liberty output, home and temporary directories, which the container's scan also leaves out
 * (its Liberty output; its /tmp and home are outside the scanned tree there by being unchanged).
 */
@SandboxTest.OnNode(LocalNode.NAME)
class LocalPathConfinementIT extends PathConfinementIT {

    /** PathConfinementIT's planted secret (its constant is its own). */
    private static final String SECRET = "outside-secret-content";

    @Test
    @Override
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
        Path runtimeDir = Path.of(sandbox.workspace).getParent();
        Path sandboxes = runtimeDir.getParent();
        // the disposable control plane's local sandboxes too: its runtimes run as the same sandbox user,
        // and may run beside this suite (LocalBackendIT)
        Path disposables = sandboxes.getParent().resolveSibling(System.getProperty("dockyard.instance", "it")
                + "-disposable-local1").resolve("sandboxes");
        String own = "-not -path '" + runtimeDir + "/liberty/*' -not -path '" + runtimeDir + "/home/*' -not -path '"
                + runtimeDir + "/tmp/*' -not -path '" + runtimeDir + "/run/*'";
        String changed = sandbox.execute(Sandbox.action("run", Sandbox.args().add("is_static", true).add("command",
                "find / -xdev -newer /tmp/marker -type f -user \"$(id -u)\" -not -path '" + sandboxes + "/*' "
                        + "-not -path '" + disposables + "/*' "
                        + "-not -path '/proc/*' -not -path '/sys/*' 2>/dev/null; "
                        + "find " + runtimeDir + " -newer /tmp/marker -type f -not -path '" + sandbox.workspace + "/*' "
                        + own + " 2>/dev/null; "
                        + "grep -rl PWNED /etc /tmp /home 2>/dev/null; cat /tmp/outside/secret.txt"))).getString("content");
        for (String line : changed.split("\n")) {
            if (!line.isBlank() && !line.equals(SECRET)) {
                escapes.add("changed " + line);
            }
        }
        assertTrue(changed.contains(SECRET), "the planted secret is there to be stolen: " + changed);
        assertEquals(List.of(), escapes, "escapes out of " + CORPUS.size() + " traversal attempts");
    }
}
