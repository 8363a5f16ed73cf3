package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The sandbox image on its own, as docker/ builds it. */
class SandboxImageIT {

    private static final String IMAGE = "dockyard/sandbox:latest";

    @Test
    void shouldRefuseToStartWithoutASessionKey() {
        DockerCli.Result result = DockerCli.run("run", "--rm", IMAGE);
        assertEquals(64, result.exitCode(), result.output());
        assertTrue(result.output().contains("refusing to start without SESSION_API_KEY"), result.output());
    }

    @Test
    void shouldExitWhenTheKeyFileCannotBeRead() {
        // a blank key file passes the launcher's check, but the executor finds no key in it: the JVM
        // itself must end rather than serve
        DockerCli.Result result = DockerCli.run("run", "--rm", "--entrypoint", "/bin/bash", IMAGE, "-c",
                "printf '   \\n' > /tmp/k && SESSION_API_KEY_FILE=/tmp/k exec /dockyard/bin/start-executor");
        assertEquals(64, result.exitCode(), result.output());
        assertTrue(result.output().contains("Executor could not start: No session key"), result.output());
    }

    @Test
    void shouldRunAsTheSandboxUserWithTheWorkspaceAsHome() {
        DockerCli.Result result = DockerCli.run("run", "--rm", "--entrypoint", "/bin/bash", IMAGE, "-c",
                "id -u; id -un; pwd; stat -c %u /workspace; command -v tini git python3 script");
        assertEquals(0, result.exitCode(), result.output());
        String[] lines = result.output().split("\n");
        assertEquals("1000", lines[0]);
        assertEquals("dockyard", lines[1]);
        assertEquals("/workspace", lines[2]);
        assertEquals("1000", lines[3]);
        assertEquals(4, lines.length - 4, result.output());
    }
}
