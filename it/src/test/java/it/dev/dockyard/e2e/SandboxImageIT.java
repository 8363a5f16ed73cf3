package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DockerCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The sandbox image on its own, as docker/ builds it. */
class SandboxImageIT {

    private static final String IMAGE = "dockyard/sandbox:latest";

    @Test
    void shouldRefuseToStartWithoutASessionKey() {
        DockerCli.Result result = DockerCli.run("run", "--rm", IMAGE);
        assertEquals(64, result.exitCode(), result.output());
        assertTrue(result.output().contains("refusing to start without SESSION_API_KEY"), result.output());
    }

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "liberty"})
    void shouldExitWhenTheKeyFileCannotBeRead(String server) {
        // a blank key file passes the launcher's check, but the executor finds no key in it: the JVM
        // itself must end rather than serve, on either server
        DockerCli.Result result = DockerCli.run("run", "--rm", "-e", "DOCKYARD_EXECUTOR_SERVER=" + server,
                "--entrypoint", "/bin/bash", IMAGE, "-c",
                "printf '   \\n' > /tmp/k && SESSION_API_KEY_FILE=/tmp/k exec /dockyard/bin/start-executor");
        assertEquals(64, result.exitCode(), result.output());
        assertTrue(result.output().contains("Executor could not start: No session key"), result.output());
    }

    @Test
    void shouldRefuseAnUnknownExecutorServer() {
        DockerCli.Result result = DockerCli.run("run", "--rm", "-e", "SESSION_API_KEY=k", "-e",
                "DOCKYARD_EXECUTOR_SERVER=tomcat", IMAGE);
        assertEquals(64, result.exitCode(), result.output());
        assertTrue(result.output().contains("DOCKYARD_EXECUTOR_SERVER is 'tomcat': embedded or liberty"), result.output());
    }

    @Test
    void shouldCarryAClassArchiveTrainedForEachServer() {
        // both servers boot warm: train-cds ran each at image build (the AOT cache on the bundle's JRE 25)
        DockerCli.Result result = DockerCli.run("run", "--rm", "--entrypoint", "/bin/bash", IMAGE, "-c",
                "for f in /dockyard/executor/executor.aot /dockyard/wlp/usr/servers/executor/executor.aot "
                        + "/dockyard/executor/executor.jsa /dockyard/wlp/usr/servers/executor/executor.jsa; "
                        + "do [ -s $f ] && echo $f; done; true");
        assertEquals(0, result.exitCode(), result.output());
        assertEquals(2, result.output().lines().count(), result.output());
        assertTrue(result.output().contains("/dockyard/executor/"), result.output());
        assertTrue(result.output().contains("/dockyard/wlp/usr/servers/executor/"), result.output());
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
