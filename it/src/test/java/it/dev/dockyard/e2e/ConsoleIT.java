package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.ConsolePage;
import it.dev.dockyard.support.DockyardApi;
import jakarta.json.Json;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.pagefactory.ByChained;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operations console in a real browser: Debian's chromium, headless at 1280×800, driven through
 * its chromedriver against the IT's control plane and real sandboxes. The browser may reach
 * 127.0.0.1 only: everything else goes to a proxy port where nothing listens. Screenshots go to
 * {@code target/console-screenshots} (docs/operations.md's come from there).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {

    private static final String BASE = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    private static final String ADMIN_KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final DockyardApi ADMIN = new DockyardApi();
    private static final Duration READY_WITHIN = Duration.ofSeconds(180);

    private static Path screenshots;
    private static Path downloads;
    private static WebDriver browser;

    @BeforeAll
    static void startBrowser() throws IOException {
        screenshots = Files.createDirectories(Path.of(System.getProperty("dockyard.screenshots", "target/console-screenshots")));
        downloads = Files.createTempDirectory("console-downloads");
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--window-size=1280,800", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--disable-domain-reliability", "--disable-extensions",
                // nothing leaves the machine: whatever is not loopback goes to a port where nothing listens
                "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1;localhost");
        Map<String, Object> prefs = new HashMap<>();
        prefs.put("download.default_directory", downloads.toString());
        prefs.put("download.prompt_for_download", false);
        options.setExperimentalOption("prefs", prefs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    private static WebDriverWait waiting(Duration within) {
        return new WebDriverWait(browser, within, Duration.ofMillis(200));
    }

    private static WebElement shown(String id) {
        return waiting(Duration.ofSeconds(20)).until(ExpectedConditions.visibilityOfElementLocated(By.id(id)));
    }

    /**
     * Clicks what {@code target} finds, found again if the page re-rendered it between the find and
     * the click (the lists refresh themselves: under load a row can be replaced in that instant).
     */
    private static void click(By target) {
        waiting(Duration.ofSeconds(20)).ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(target).click();
            return true;
        });
    }

    /** Waits for {@code expected} in the element; a timeout names what it showed instead, and a screenshot is kept. */
    private static void textIn(String id, String expected, Duration within) {
        try {
            waiting(within).until(ExpectedConditions.textToBePresentInElementLocated(By.id(id), expected));
        } catch (TimeoutException e) {
            List<WebElement> found = browser.findElements(By.id(id));
            String shown = found.isEmpty() ? "(no such element)" : "'" + found.get(0).getText() + "'";
            try {
                screenshot("failed-" + id);
            } catch (IOException | RuntimeException ignored) {
                // the message below says enough
            }
            throw new AssertionError("#" + id + " did not show '" + expected + "' within " + within + ": it shows " + shown, e);
        }
    }

    private static void screenshot(String name) throws IOException {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), screenshots.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static void logIn(String key) {
        browser.get(BASE + "/console/");
        ConsolePage.signedOut(browser, Duration.ofSeconds(20));
        WebElement field = shown("api-key");
        field.clear();
        field.sendKeys(key);
        browser.findElement(By.id("login-button")).click();
    }

    private static void confirm() {
        shown("confirm-yes").click();
    }

    @Test
    @Order(1)
    void shouldServeTheConsoleWithAStrictContentSecurityPolicy() throws Exception {
        // HTTP/1.1 as a browser speaks it: Liberty leaves a static file's answer to an h2c upgrade hanging
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(BASE + "/console/"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        String csp = page.headers().firstValue("Content-Security-Policy").orElse("");
        assertTrue(csp.contains("default-src 'self'"), csp);
        assertTrue(csp.contains("script-src 'self'"), csp);
        assertTrue(page.body().contains("app.js"));
    }

    @Test
    @Order(2)
    void shouldShowAClearErrorForAWrongKey() throws IOException {
        logIn("dy_not-a-key");
        textIn("login-error", "refused", Duration.ofSeconds(20));
        assertTrue(browser.findElement(By.id("login-error")).getText().contains("401"));
        assertFalse(browser.findElement(By.id("nav")).isDisplayed());
        // the refused key is not kept
        assertEquals(null, ((JavascriptExecutor) browser).executeScript("return sessionStorage.getItem('dockyard.apiKey')"));
        screenshot("01-login-wrong-key");
    }

    @Test
    @Order(3)
    void shouldProvisionRunPauseResumeMoveFilesAndDeleteFromTheConsole() throws Exception {
        logIn(ADMIN_KEY);
        textIn("whoami", "admin", Duration.ofSeconds(20));
        shown("nav-users");
        JavascriptExecutor js = (JavascriptExecutor) browser;
        assertEquals(ADMIN_KEY, js.executeScript("return sessionStorage.getItem('dockyard.apiKey')"));
        assertEquals(null, js.executeScript("return localStorage.getItem('dockyard.apiKey')"));
        assertEquals("", js.executeScript("return document.cookie"));
        textIn("live", "Live", Duration.ofSeconds(20));

        // provision: READY must arrive through the live stream, without the page being loaded again
        js.executeScript("window.consoleMarker = 'same page'");
        String conversation = "console-" + UUID.randomUUID().toString().substring(0, 8);
        shown("provision-conversation").sendKeys(conversation);
        browser.findElement(By.id("provision-button")).click();
        textIn("provision-message", "Runtime rt-", Duration.ofSeconds(30));
        String message = browser.findElement(By.id("provision-message")).getText();
        String runtimeId = message.substring(message.indexOf("rt-")).split(" ")[0];
        try {
            useTheRuntimesPage(runtimeId);
        } finally {
            ADMIN.delete("runtimes/" + runtimeId);
        }

        // nothing the console loaded came from anywhere but the control plane
        @SuppressWarnings("unchecked")
        List<String> loaded = (List<String>) js.executeScript(
                "return performance.getEntriesByType('resource').map(e => e.name)");
        assertFalse(loaded.isEmpty());
        loaded.forEach(url -> assertTrue(url.startsWith(BASE + "/"), url));
    }

    private void useTheRuntimesPage(String runtimeId) throws Exception {
        By statusCell = By.cssSelector("tr[data-runtime-id='" + runtimeId + "'] td.status-cell");
        waiting(READY_WITHIN).until(ExpectedConditions.textToBe(statusCell, "READY"));
        assertEquals("same page", ((JavascriptExecutor) browser).executeScript("return window.consoleMarker"));
        screenshot("02-runtimes");

        // the runtime's page: the terminal runs echo
        click(By.linkText(runtimeId));
        textIn("runtime-status", "READY", Duration.ofSeconds(20));
        textIn("history", "READY", Duration.ofSeconds(20));
        shown("command").sendKeys("echo hello-from-the-console");
        browser.findElement(By.id("run")).click();
        waiting(Duration.ofSeconds(60)).until(d -> d.findElement(By.id("terminal-output")).getText()
                .lines().anyMatch(l -> l.equals("hello-from-the-console")));

        // upload a file, see it listed, download it back as a zip
        String content = "uploaded through the console " + UUID.randomUUID();
        Path local = Files.createTempDirectory("console-upload").resolve("console-note.txt");
        Files.writeString(local, content);
        browser.findElement(By.id("upload-file")).sendKeys(local.toString());
        browser.findElement(By.id("upload-button")).click();
        textIn("files-message", "Uploaded console-note.txt", Duration.ofSeconds(60));
        textIn("file-list", "console-note.txt", Duration.ofSeconds(30));
        click(By.xpath("//*[@id='file-list']//button[contains(concat(' ', @class, ' '), ' file ') and normalize-space(.)='console-note.txt']"));
        assertEquals("/workspace/console-note.txt", browser.findElement(By.id("download-path")).getAttribute("value"));
        browser.findElement(By.id("download-button")).click();
        textIn("files-message", "Downloaded", Duration.ofSeconds(60));
        Path zip = waiting(Duration.ofSeconds(30)).until(d -> finishedDownload());
        assertEquals(content, zipped(zip, "console-note.txt"));
        waiting(Duration.ofSeconds(30)).until(d -> d.findElements(By.cssSelector("#audit tbody td")).stream()
                .anyMatch(td -> td.getText().equals("run")));
        ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
        screenshot("03-runtime");

        // pause and resume, each confirmed
        browser.findElement(By.id("pause")).click();
        confirm();
        textIn("runtime-status", "PAUSED", Duration.ofSeconds(60));
        assertEquals("PAUSED", ADMIN.get("runtimes/" + runtimeId).json().getString("status"));
        browser.findElement(By.id("resume")).click();
        confirm();
        textIn("runtime-status", "READY", Duration.ofSeconds(120));
        shown("command").sendKeys("echo awake-again");
        browser.findElement(By.id("run")).click();
        waiting(Duration.ofSeconds(60)).until(d -> d.findElement(By.id("terminal-output")).getText()
                .lines().anyMatch(l -> l.equals("awake-again")));

        // delete: cancelling keeps it, confirming removes it
        browser.findElement(By.id("delete")).click();
        shown("confirm-no").click();
        assertEquals("READY", ADMIN.get("runtimes/" + runtimeId).json().getString("status"));
        browser.findElement(By.id("delete")).click();
        confirm();
        textIn("runtime-status", "STOPPED", Duration.ofSeconds(120));
        DockyardApi.Answer gone = ADMIN.get("runtimes/" + runtimeId);
        assertTrue(gone.status() == 404 || "STOPPED".equals(gone.json().getString("status")), gone.body());
    }

    private static Path finishedDownload() {
        try (Stream<Path> files = Files.list(downloads)) {
            return files.filter(p -> p.toString().endsWith(".zip")).findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static String zipped(Path zip, String name) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (entry.getName().endsWith(name)) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        }
        throw new AssertionError(name + " is not in " + zip);
    }

    @Test
    @Order(4)
    void shouldShowNonAdminsOnlyTheirOwnRuntimesAndNoUserManagement() throws Exception {
        String userId = "console-user-" + UUID.randomUUID().toString().substring(0, 8);
        String key = ADMIN.post("users", Json.createObjectBuilder().add("userId", userId).add("role", "user").build())
                .json().getString("apiKey");
        DockyardApi user = ADMIN.withKey(key);
        DockyardApi.Answer mine = user.provision(Json.createObjectBuilder().add("conversationId", "console-mine").build(), 120);
        DockyardApi.Answer admins = ADMIN.provision(Json.createObjectBuilder()
                .add("conversationId", "console-admins-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, mine.status(), mine.body());
        assertEquals(201, admins.status(), admins.body());
        String mineId = mine.json().getString("id");
        String adminsId = admins.json().getString("id");
        try {
            logIn(key);
            textIn("whoami", userId, Duration.ofSeconds(20));
            waiting(Duration.ofSeconds(20)).until(ExpectedConditions.presenceOfElementLocated(
                    By.cssSelector("tr[data-runtime-id='" + mineId + "']")));
            assertTrue(browser.findElements(By.cssSelector("tr[data-runtime-id='" + adminsId + "']")).isEmpty());
            assertFalse(browser.findElement(By.id("nav-users")).isDisplayed());
            assertFalse(browser.findElement(By.id("nav-nodes")).isDisplayed());
            assertTrue(browser.findElements(By.id("filter-user")).isEmpty());
            screenshot("05-user-runtimes");
            browser.get(BASE + "/console/#/users");
            waiting(Duration.ofSeconds(20)).until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"),
                    "Only admins"));
            assertTrue(browser.findElements(By.id("create-user")).isEmpty());
        } finally {
            ADMIN.delete("runtimes/" + adminsId);
        }

        // the admin rotates the user's key, then deletes the user (their runtime first) from the console
        logIn(ADMIN_KEY);
        textIn("whoami", "admin", Duration.ofSeconds(20));
        browser.findElement(By.id("nav-users")).click();
        By row = By.cssSelector("tr[data-user-id='" + userId + "']");
        waiting(Duration.ofSeconds(20)).until(ExpectedConditions.textToBePresentInElementLocated(row, "1 /"));
        click(new ByChained(row, By.cssSelector("button.rotate")));
        confirm();
        textIn("new-key-value", "dy_", Duration.ofSeconds(20));
        String rotated = browser.findElement(By.id("new-key-value")).getText();
        assertEquals(401, user.get("users/me").status());
        assertEquals(userId, ADMIN.withKey(rotated).get("users/me").json().getString("userId"));
        screenshot("04-users");
        click(new ByChained(row, By.cssSelector("button.delete-user")));
        confirm();
        textIn("users-message", "deleted", Duration.ofSeconds(120));
        // the list reloads after the message: wait for the row to go (a TimeoutException fails the test)
        waiting(Duration.ofSeconds(20)).until(d -> d.findElements(row).isEmpty());
        DockyardApi.Answer after = ADMIN.get("runtimes/" + mineId);
        assertTrue(after.status() == 404 || "STOPPED".equals(after.json().getString("status")), after.body());
    }

    @Test
    @Order(5)
    void shouldShowNodesWithTheirHealth() throws Exception {
        logIn(ADMIN_KEY);
        textIn("whoami", "admin", Duration.ofSeconds(20));
        browser.findElement(By.id("nav-nodes")).click();
        waiting(Duration.ofSeconds(20)).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-node='local']")));
        assertTrue(browser.findElement(By.cssSelector("tr[data-node='local']")).getText().contains("healthy"));
        screenshot("06-nodes");
        browser.findElement(By.id("nav-pools")).click();
        shown("pools");
        browser.findElement(By.id("nav-images")).click();
        shown("build-base");
        shown("images");
        // keyboard: a page takes the focus when it opens, and Tab leads to its first field
        assertEquals("view", browser.switchTo().activeElement().getAttribute("id"));
        browser.switchTo().activeElement().sendKeys(Keys.TAB);
        assertEquals("build-base", browser.switchTo().activeElement().getAttribute("id"));
    }
}
