package it.dev.dockyard.executor;

import it.dev.dockyard.support.HostTmp;
import it.dev.dockyard.support.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@link PathConfinementIT}'s traversal corpus against a runtime of the cli node, on this host:
 * zero may escape the runtime's workspace directory. The scan for changes is the one difference:
 * {@code find /} on a shared host lists every file other processes write meanwhile, so it looks
 * where the corpus' writes could land instead: the planted outside directory, the cli node's
 * root (the runtime's own directory beside its workspace, and its neighbours), {@code /etc} and
 * the files at the top of {@code /tmp}.
 */
@SandboxTest.OnNode(value = "cli1", onThisHost = true)
@ResourceLock(HostTmp.LOCK)
class CliPathConfinementIT extends PathConfinementIT {

    @AfterAll
    static void clearHostTmp() {
        HostTmp.clear();
    }

    @Override
    String changedOutsideTheWorkspace() {
        String root = w("/workspace/../..");
        return sandbox.execute(Sandbox.action("run", Sandbox.args().add("is_static", true).add("command",
                "find /tmp/outside " + root + " -xdev -newer /tmp/marker -type f "
                        + w("-not -path '/workspace/*' ") + "2>/dev/null; "
                        + "grep -rl PWNED /etc /tmp/outside " + root + " 2>/dev/null | grep -v " + w("'^/workspace/'")
                        // regular files only: a FIFO in /tmp would hold grep forever
                        + "; find /tmp -maxdepth 1 -type f -size -1M -exec grep -l PWNED {} + 2>/dev/null; "
                        + "cat /tmp/outside/secret.txt")))
                .getString("content");
    }
}
