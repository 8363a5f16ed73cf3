package it.dev.dockyard.executor;

import it.dev.dockyard.support.Sandbox;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * {@link BashProtocolIT} in a sandbox on gVisor (the engine's runsc: docker/ensure-gvisor.sh).
 *
 * <p>Debian bookworm's runsc (2022-12-19), measured here: its terminal turns no control key into a
 * signal and shows no foreground group, so the executor sends C-c, C-z and C-\'s signals to the
 * shell's foreground job itself; the interrupt, suspend, hard-timeout and configuration tests run
 * as on runc. Its terminal never gives a reader the empty read that is an end of input (a C-d on
 * an empty line is dropped; fixed upstream in 2023-02), and nothing outside the program can stand
 * in for it, so the C-d test is left out. A command such a test leaves running would hold the
 * shell, so a sandbox that cannot be brought back to an idle prompt is replaced before the next test.
 */
@SandboxTest.OnRuntime("runsc")
class GvisorBashProtocolIT extends BashProtocolIT {

    @AfterEach
    @Override
    void backToIdle() {
        try {
            if (Sandbox.exitCode(sandbox.run("cd /workspace")) == 0) {
                return;
            }
        } catch (RuntimeException | AssertionError notIdle) {
            // a command still holds the shell: the executor refuses another
        }
        sandbox.close();
        sandbox = Sandbox.start("--runtime", "runsc");
    }

    /**
     * gVisor's terminal on the ptrace platform moves 200 MB in 2 minutes and more on a loaded machine
     * (119 and 145 s seen in CI at load 10-20), where runc takes 4-8 s: what is measured here is the
     * executor's bounded heap, not gVisor's throughput.
     */
    @Override
    double hugeOutputSeconds() {
        return 400;
    }

    @Test
    @Disabled("runsc 2022-12-19: a C-d on an empty line never becomes the empty read that ends a program's input")
    @Override
    void shouldEndInputWithCtrlD() {
    }
}
