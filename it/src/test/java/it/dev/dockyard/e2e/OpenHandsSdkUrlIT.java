package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dockyard.config.ServiceUrls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 31 item 1: which runtime URLs OpenHands' SDK accepts, decided by its own check run in the
 * real httpx (the library the SDK uses). {@code APIRemoteWorkspace._start_or_attach_to_runtime}
 * (openhands-workspace/openhands/workspace/remote_api/workspace.py, software-agent-sdk
 * {@code 611629e6}) strips one trailing slash from the runtime's {@code url}, makes it an
 * {@code httpx.Client}'s {@code base_url} and asserts {@code client.base_url == host}; httpx ends
 * a base URL that has a path with a slash, so no path-mode URL passes, and a host of its own per
 * runtime (subdomain mode) does. The URLs are built by the code the Remote Runtime API answers
 * with ({@link ServiceUrls}).
 *
 * <p>httpx is installed once into a virtual environment kept beside E2B's SDKs
 * ({@code /var/lib/dockyard/httpx}, property {@code dockyard.httpx-venv}) from this machine's
 * Python package index; where Python or httpx cannot be had, the test is skipped saying so.
 */
class OpenHandsSdkUrlIT {

    /** The SDK's lines, verbatim but for the loop and the print. */
    private static final String CHECK = String.join("\n",
            "import sys, httpx",
            "for url in sys.argv[1:]:",
            "    host = url.rstrip('/')  # self.host = self._runtime_url.rstrip('/')",
            "    client = httpx.Client(base_url=host)",
            "    print('accepted' if client.base_url == host else 'refused')  # assert self.client.base_url == self.host",
            "");
    private static final Path VENV = Path.of(System.getProperty("dockyard.httpx-venv", "/var/lib/dockyard/httpx"));
    private static final int SERVICES_PORT = Integer.getInteger("dockyard.proxy-port", 19081);
    private static final String RUNTIME = "rt-0123456789abcdef";

    private static String python;

    @BeforeAll
    static void httpx() throws Exception {
        Path bin = VENV.resolve("bin/python");
        if (!Files.isExecutable(bin) || run(List.of(bin.toString(), "-c", "import httpx")).exit() != 0) {
            Result venv = run(List.of("python3", "-m", "venv", VENV.toString()));
            assumeTrue(venv.exit() == 0, "python3 -m venv is not available here: " + venv.output());
            Result pip = run(List.of(VENV.resolve("bin/pip").toString(), "install", "-q", "httpx==0.28.1"));
            assumeTrue(pip.exit() == 0, "httpx could not be installed from this machine's package index: "
                    + pip.output());
        }
        python = bin.toString();
    }

    private static List<String> check(String... urls) throws Exception {
        List<String> command = new ArrayList<>(List.of(python, "-c", CHECK));
        command.addAll(List.of(urls));
        Result result = run(command);
        assertEquals(0, result.exit(), result.output());
        return result.output().lines().toList();
    }

    @Test
    void shouldBeAcceptedOnAHostOfItsOwn() throws Exception {
        String loopback = ServiceUrls.runtimeUrl(ServiceUrls.publicBase(ServiceUrls.Mode.SUBDOMAIN, null, "http",
                "127.0.0.1", SERVICES_PORT), RUNTIME);
        String named = ServiceUrls.runtimeUrl(ServiceUrls.publicBase(ServiceUrls.Mode.SUBDOMAIN,
                "https://sandboxes.example.com", "http", "127.0.0.1", SERVICES_PORT), RUNTIME);
        assertEquals("http://" + RUNTIME + ".localhost:" + SERVICES_PORT, loopback);
        assertEquals("https://" + RUNTIME + ".sandboxes.example.com", named);

        assertEquals(List.of("accepted", "accepted"), check(loopback, named));
    }

    @Test
    void shouldBeRefusedWithAPathWhateverItsForm() throws Exception {
        String path = ServiceUrls.runtimeUrl(ServiceUrls.publicBase(ServiceUrls.Mode.PATH, null, "http", "127.0.0.1",
                SERVICES_PORT), RUNTIME);
        assertEquals("http://127.0.0.1:" + SERVICES_PORT + "/" + RUNTIME, path);

        // with or without the slash the SDK strips, or one it cannot strip: httpx adds its own
        assertEquals(List.of("refused", "refused", "refused"), check(path, path + "/", path + "//"));
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PIP_RETRIES", "0");
        builder.environment().put("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Result(-1, "timed out: " + command);
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8).strip());
    }
}
