package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** The jupyter plugin on a real sandbox started with it: one persistent IPython kernel. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JupyterPluginIT {

    /** A 1×1 PNG. */
    private static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    static Sandbox sandbox;

    @BeforeAll
    static void startSandbox() {
        sandbox = Sandbox.start("-e", "DOCKYARD_PLUGINS=jupyter");
    }

    @AfterAll
    static void removeSandbox() {
        sandbox.close();
    }

    private static JsonObject cell(String code) {
        return sandbox.execute(Sandbox.action("run_ipython", Sandbox.args().add("code", code)));
    }

    private static JsonObject cell(String code, double timeout, String init) {
        return sandbox.execute(Json.createObjectBuilder().add("action", "run_ipython").add("timeout", timeout)
                .add("args", Sandbox.args().add("code", code).add("kernel_init_code", init)).build());
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void shouldKeepStateAcrossCells() {
        JsonObject first = cell("x = 6 * 7\nprint('x is', x)");
        assertEquals("run_ipython", first.getString("observation"));
        assertTrue(first.getString("content").startsWith("x is 42"), first.toString());
        assertTrue(first.getString("content").contains("[Jupyter current working directory: /workspace]"),
                first.toString());
        assertTrue(cell("x + 1").getString("content").startsWith("43"));
    }

    @Test
    @org.junit.jupiter.api.Order(2)
    void shouldAnswerErrorsWithTheirTraceback() {
        String content = cell("def f():\n    return 1 / 0\nf()").getString("content");
        assertTrue(content.contains("ZeroDivisionError"), content);
        assertTrue(content.contains("return 1 / 0"), content);
        assertFalse(content.contains("\u001b["), "no terminal colours: " + content);
    }

    @Test
    @org.junit.jupiter.api.Order(3)
    void shouldReturnDisplayedImagesAsDataUrls() {
        JsonObject shown = cell("import base64\nfrom IPython.display import Image, display\n"
                + "display(Image(data=base64.b64decode('" + PNG + "')))");
        assertEquals("data:image/png;base64," + PNG,
                shown.getJsonObject("extras").getJsonArray("image_urls").getString(0), shown.toString());
    }

    @Test
    @org.junit.jupiter.api.Order(4)
    void shouldFollowTheShellsWorkingDirectory() {
        sandbox.run("mkdir -p /tmp/jupyter-cwd && cd /tmp/jupyter-cwd");
        assertTrue(cell("import os; print(os.getcwd())").getString("content").startsWith("/tmp/jupyter-cwd"));
        sandbox.run("cd /workspace");
    }

    @Test
    @org.junit.jupiter.api.Order(5)
    void shouldInterruptAHungCellAndKeepTheKernel() {
        long start = System.nanoTime();
        JsonObject hung = cell("import time\nfor i in range(1000):\n    time.sleep(0.1)", 2, "");
        assertTrue((System.nanoTime() - start) / 1_000_000 < 15_000, "answered after the timeout, not the loop");
        assertTrue(hung.getString("content").contains("KeyboardInterrupt"), hung.toString());
        // OpenHands' text (plugins/jupyter/execute_server.py), after the partial output Dockyard keeps
        assertTrue(hung.getString("content").contains("\n[Execution timed out (2.0 seconds).]"), hung.toString());
        assertTrue(cell("print(x)").getString("content").startsWith("42"), "variables survive the interrupt");
    }

    @Test
    @org.junit.jupiter.api.Order(6)
    void shouldRunTheInitCodeAgainAfterARestart() {
        assertTrue(cell("print(greeting)", 10, "greeting = 'hello from init'").getString("content")
                .startsWith("hello from init"));
        JsonObject died = cell("import os; os._exit(1)");
        assertTrue(died.getString("content").contains("restarted"), died.toString());
        JsonObject after = cell("print(greeting); print('x' in dir())");
        assertTrue(after.getString("content").startsWith("hello from init\nFalse"), after.toString());
    }
}
