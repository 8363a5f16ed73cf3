package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The browser plugin on the browser image variant: pages served inside the same sandbox
 * ({@code python3 -m http.server} on localhost there), never the internet.
 */
class BrowserPluginIT {

    static Sandbox sandbox;
    private static final String SITE = "http://localhost:8123/";

    @BeforeAll
    static void startSandboxWithASite() {
        sandbox = Sandbox.startImage("dockyard/sandbox-browser:latest", "-e", "DOCKYARD_PLUGINS=browser",
                "--memory", "2g", "--shm-size", "256m");
        sandbox.run("mkdir -p /tmp/site && cd /tmp/site && cat > index.html <<'EOF'\n"
                + "<html><head><title>Dockyard test site</title></head><body>\n"
                + "<h1>Welcome aboard</h1><p>First paragraph.</p>\n"
                + "<ul><li>alpha</li><li>beta</li></ul>\n"
                + "<a href=\"page2.html\">Second page</a>\n"
                + "<form onsubmit=\"return false\"><input id=\"name\" name=\"name\" placeholder=\"Your name\">\n"
                + "<button type=\"button\" onclick=\"document.getElementById('out').innerText = 'Hello, ' + "
                + "document.getElementById('name').value\">Greet</button></form>\n"
                + "<p id=\"out\"></p><script>document.title = document.title</script></body></html>\n"
                + "EOF\n"
                + "printf '<html><head><title>Two</title></head><body><h2>Page two</h2></body></html>' > page2.html");
        sandbox.run("cd /tmp/site && (python3 -m http.server 8123 --bind 127.0.0.1 >/dev/null 2>&1 &) && sleep 1 && cd /workspace");
    }

    @AfterAll
    static void removeSandbox() {
        sandbox.close();
    }

    private static JsonObject browse(String url) {
        return sandbox.execute(Sandbox.action("browse", Sandbox.args().add("url", url)));
    }

    private static JsonObject interact(String script) {
        return sandbox.execute(Sandbox.action("browse_interactive", Sandbox.args().add("browser_actions", script)));
    }

    @Test
    void shouldReadAPageAsTextWithAScreenshot() {
        JsonObject page = browse(SITE + "index.html");
        assertEquals("browse", page.getString("observation"));
        String text = page.getString("content");
        // OpenHands' frame (browser/utils.py get_agent_obs_text) around the page's text
        assertTrue(text.startsWith("[Current URL: " + SITE + "index.html]\n"
                + "============== BEGIN webpage content ==============\n# Dockyard test site"), text);
        assertTrue(text.endsWith("\n============== END webpage content ==============\n"), text);
        assertTrue(text.contains("# Welcome aboard"), text);
        assertTrue(text.contains("- alpha") && text.contains("- beta"), text);
        assertTrue(text.contains("[Second page](" + SITE + "page2.html)"), text);
        assertTrue(text.contains("[input type=text name=name id=name placeholder=\"Your name\""), text);
        JsonObject extras = page.getJsonObject("extras");
        assertEquals(SITE + "index.html", extras.getString("url"));
        assertFalse(extras.getBoolean("error"));
        assertTrue(extras.getString("screenshot").startsWith("data:image/png;base64,iVBOR"), "a PNG screenshot");
        // saved where OpenHands saves it, and really there
        String saved = extras.getString("screenshot_path");
        assertTrue(saved.matches("/workspace/\\.browser_screenshots/screenshot_\\d{8}_\\d{6}_\\d{6}\\.png"), saved);
        assertEquals("PNG", sandbox.run("head -c 4 " + saved + " | tail -c 3").getString("content"));
        assertEquals(List.of(SITE + "index.html"), extras.getJsonArray("open_pages_urls").getValuesAs(
                JsonString::getString));
        assertEquals(0, extras.getInt("active_page_index"));
        assertEquals("goto(\"" + SITE + "index.html\")", extras.getString("last_browser_action"));
    }

    @Test
    void shouldAnswerAnUnreachablePageAsAnErrorObservation() {
        JsonObject page = browse("http://localhost:8199/");
        assertTrue(page.getJsonObject("extras").getBoolean("error"), page.toString());
        assertTrue(page.getString("content").contains("ERR_CONNECTION_REFUSED"), page.getString("content"));
    }

    @Test
    void shouldFillClickNavigateAndGoBack() {
        JsonObject greeted = interact("goto('" + SITE + "index.html')\nfill('#name', 'Dockyard')\nclick('Greet')");
        assertTrue(greeted.getString("content").contains("Hello, Dockyard"), greeted.getString("content"));
        // OpenHands' last_browser_action is the whole script that ran
        assertEquals("goto('" + SITE + "index.html')\nfill('#name', 'Dockyard')\nclick('Greet')",
                greeted.getJsonObject("extras").getString("last_browser_action"));
        assertTrue(greeted.getString("content").contains("[Focused element bid: ]\n[Screenshot saved to: "),
                greeted.getString("content"));
        assertTrue(greeted.getString("content").contains("\n\n[Action executed successfully.]\n"),
                greeted.getString("content"));

        JsonObject second = interact("click('Second page')");
        assertEquals(SITE + "page2.html", second.getJsonObject("extras").getString("url"));
        assertTrue(second.getString("content").contains("## Page two"), second.getString("content"));

        JsonObject back = interact("go_back()\nscroll('down')");
        assertEquals(SITE + "index.html", back.getJsonObject("extras").getString("url"));

        JsonObject missing = interact("click('#no-such-thing')");
        assertTrue(missing.getJsonObject("extras").getBoolean("error"), missing.toString());
        assertTrue(missing.getJsonObject("extras").getString("last_browser_action_error").contains("no element matches"),
                missing.toString());
    }
}
