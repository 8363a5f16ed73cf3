package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ConsolePage;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RuntimeApi;
import it.dev.dockyard.support.ThroughUrl;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.File;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What a sandbox serves, opened in a real browser (Debian's chromium, as ConsoleIT drives it), cannot reach the
 * console's key nor another runtime's answers. Two runtimes A and B of one user serve pages on their work-1 port (a
 * Python server the test starts in each); the browser signs in to the console (its key in the console origin's
 * sessionStorage), opens B's secret with B's {@code ?tkn=} (so it holds B's cookie), then A's probe page, whose
 * script tries to read the console's storage, to frame the console and read its storage, and to fetch B's secret
 * with the browser's cookies. Both ways of naming a runtime on the services' port: path mode (one origin for all
 * runtimes, each page in a Content-Security-Policy sandbox) and subdomain mode ({@code work-1-rt-….localhost}, an
 * origin per runtime; chromium resolves {@code *.localhost} to the loopback itself). The browser reaches
 * 127.0.0.1 only.
 */
class ServiceOriginIT {

    private static final String CONSOLE = RuntimeApi.BASE_URL;
    private static final String SERVICES_PORT = RuntimeApi.SERVICES_URL.substring(RuntimeApi.SERVICES_URL.lastIndexOf(':') + 1);
    private static final String SECRET = "b-secret-" + UUID.randomUUID();

    private static RuntimeApi.User user;
    private static Runtime a;
    private static Runtime b;
    private static WebDriver browser;

    /** A started runtime: its id, url and session key. */
    record Runtime(String id, String url, String key) {

        String subdomainUrl(String service) {
            return "http://" + service + "-" + id + ".localhost:" + SERVICES_PORT;
        }
    }

    @BeforeAll
    static void twoRuntimesServingPagesAndABrowser() {
        user = RuntimeApi.newUser("origins");
        a = started();
        b = started();
        for (Runtime runtime : new Runtime[] {a, b}) {
            execute(runtime, Json.createObjectBuilder().add("action", "run").add("args", Json.createObjectBuilder()
                    .add("command", "mkdir -p /workspace/site")).build());
        }
        serve(b, "secret.txt", SECRET);
        serve(a, "own.txt", "a-own");
        serve(a, "path.html", probe(b.url() + "/work-1/secret.txt"));
        serve(a, "host.html", probe(b.subdomainUrl("work-1") + "/secret.txt"));
        for (Runtime runtime : new Runtime[] {a, b}) {
            execute(runtime, Json.createObjectBuilder().add("action", "run").add("args", Json.createObjectBuilder()
                    .add("command", "(nohup python3 -m http.server 12000 --directory /workspace/site >/dev/null 2>&1 &)"))
                    .build());
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> ThroughUrl.get(runtime.url() + "/work-1/", runtime.key()).statusCode() == 200);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--window-size=1280,800", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--disable-domain-reliability", "--disable-extensions",
                // nothing leaves the machine: whatever is not loopback goes to a port where nothing listens
                "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1;localhost;*.localhost",
                "--host-resolver-rules=MAP *.localhost 127.0.0.1");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void cleanUp() {
        if (browser != null) {
            browser.quit();
        }
        for (Runtime runtime : new Runtime[] {a, b}) {
            if (runtime != null) {
                RuntimeApi.cleanUp(user, runtime.id());
            }
        }
    }

    @Test
    void shouldKeepAPageOfOneRuntimeFromTheConsolesKeyAndAnotherRuntimesAnswersInPathMode() {
        assertTrue(a.url().startsWith(RuntimeApi.SERVICES_URL + "/"), "never on the console's origin: " + a.url());
        signInToTheConsole();
        // the browser holds B's cookie: B's own page is B's to read
        browser.get(b.url() + "/work-1/secret.txt?tkn=" + RuntimeApi.encode(b.key()));
        assertTrue(browser.getPageSource().contains(SECRET), browser.getPageSource());

        JsonObject seen = probed(a.url() + "/work-1/path.html?tkn=" + RuntimeApi.encode(a.key()));
        System.out.println("[origins] path mode, A's page saw: " + seen);
        assertNoConsoleKey(seen);
        assertFalse(seen.getString("other").contains(SECRET), "B's answer read from A's page: " + seen);
        assertTrue(seen.getString("other").startsWith("blocked"), seen.toString());
    }

    @Test
    void shouldGiveEveryRuntimeAnOriginOfItsOwnInSubdomainMode() {
        signInToTheConsole();
        browser.get(b.subdomainUrl("work-1") + "/secret.txt?tkn=" + RuntimeApi.encode(b.key()));
        assertTrue(browser.getPageSource().contains(SECRET), browser.getPageSource());

        JsonObject seen = probed(a.subdomainUrl("work-1") + "/host.html?tkn=" + RuntimeApi.encode(a.key()));
        System.out.println("[origins] subdomain mode, A's page saw: " + seen);
        assertNoConsoleKey(seen);
        assertEquals("null", seen.getString("storage"), "its own origin's storage, empty: " + seen);
        assertFalse(seen.getString("other").contains(SECRET), "B's answer read from A's page: " + seen);
        assertTrue(seen.getString("other").startsWith("blocked"), seen.toString());
        // what its own origin serves, the page reads, signed in by its cookie
        assertEquals("read 200 a-own", seen.getString("own").strip(), seen.toString());
    }

    private static void signInToTheConsole() {
        browser.get(CONSOLE + "/console/");
        ConsolePage.signedOut(browser, Duration.ofSeconds(20));
        WebElement field = new WebDriverWait(browser, Duration.ofSeconds(20))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        field.clear();
        field.sendKeys(user.apiKey());
        browser.findElement(By.id("login-button")).click();
        new WebDriverWait(browser, Duration.ofSeconds(20))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("logout")));
        Object kept = ((JavascriptExecutor) browser)
                .executeScript("return sessionStorage.getItem('dockyard.apiKey')");
        assertEquals(user.apiKey(), kept, "the console keeps its key in its origin's sessionStorage");
    }

    private static void assertNoConsoleKey(JsonObject seen) {
        assertTrue(seen.getBoolean("ran"), "the probe's script ran: " + seen);
        assertFalse(seen.toString().contains(user.apiKey()), "the console's key reached A's page: " + seen);
        assertFalse(seen.getString("api").startsWith("read 200"), "the API answered A's page: " + seen);
    }

    /** Opens the probe page and reads what its script found (it writes JSON into #result). */
    private static JsonObject probed(String url) {
        browser.get(url);
        new WebDriverWait(browser, Duration.ofSeconds(30)).until(ExpectedConditions.not(
                ExpectedConditions.textToBePresentInElementLocated(By.id("result"), "running")));
        String text = browser.findElement(By.id("result")).getText();
        return Json.createReader(new StringReader(text)).readObject();
    }

    /**
     * A page whose script tries what a hostile sandbox would: the console's key in its own origin's storage, the
     * console framed and its storage read, the API, another runtime's answer and its own, each with the
     * browser's cookies; it writes what it got (or the error that stopped it) as JSON into #result.
     */
    private static String probe(String other) {
        return """
                <!doctype html><html><head><title>probe</title></head><body><pre id="result">running</pre>
                <script>
                (async () => {
                  const out = {ran: true};
                  try { out.storage = String(sessionStorage.getItem('dockyard.apiKey')); }
                  catch (e) { out.storage = 'blocked ' + e.name; }
                  const read = async (url) => {
                    try { const r = await fetch(url, {credentials: 'include'}); return 'read ' + r.status + ' ' + (await r.text()); }
                    catch (e) { return 'blocked ' + e.name; }
                  };
                  out.other = await read('OTHER');
                  out.own = await read('own.txt');
                  out.api = await read('CONSOLE/api/v1/users/me');
                  out.consoleFrame = await new Promise((done) => {
                    const frame = document.createElement('iframe');
                    const timer = setTimeout(() => done('no load'), 5000);
                    frame.onload = () => {
                      clearTimeout(timer);
                      try { done(String(frame.contentWindow.sessionStorage.getItem('dockyard.apiKey'))); }
                      catch (e) { done('blocked ' + e.name); }
                    };
                    frame.src = 'CONSOLE/console/';
                    document.body.appendChild(frame);
                  });
                  document.getElementById('result').textContent = JSON.stringify(out);
                })();
                </script></body></html>
                """.replace("OTHER", other).replace("CONSOLE", CONSOLE);
    }

    private static Runtime started() {
        JsonObject started = user.runtimes().started(DockyardImageThroughRuntimeApiIT.legacyStart(
                UUID.randomUUID().toString().replace("-", ""), "origins"));
        Runtime runtime = new Runtime(started.getString("runtime_id"), started.getString("url"),
                started.getString("session_api_key"));
        DockyardImageThroughRuntimeApiIT.awaitReadyLikeTheLegacyRuntime(user.runtimes(), runtime.id());
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> ThroughUrl.get(runtime.url() + "/alive", runtime.key()).body().contains("\"ok\""));
        return runtime;
    }

    private static void serve(Runtime runtime, String name, String content) {
        JsonObject written = execute(runtime, Json.createObjectBuilder().add("action", "write").add("args",
                Json.createObjectBuilder().add("path", "/workspace/site/" + name).add("content", content)).build());
        assertEquals("write", written.getString("observation"), written.toString());
    }

    private static JsonObject execute(Runtime runtime, JsonObject action) {
        HttpResponse<String> answer = ThroughUrl.post(runtime.url() + "/execute_action", runtime.key(),
                Json.createObjectBuilder().add("action", action).build());
        assertEquals(200, answer.statusCode(), answer.body());
        return DockyardApi.parse(answer.body());
    }
}
