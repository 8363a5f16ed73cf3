package dev.dockyard.executor.plugins;

import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.BrowseInteractiveAction;
import dev.dockyard.protocol.BrowseObservation;
import dev.dockyard.protocol.BrowseUrlAction;
import dev.dockyard.protocol.Observation;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * {@code browse} and {@code browse_interactive} with the image's headless Chromium, driven over
 * the DevTools protocol on 127.0.0.1 inside the sandbox. Pages come back as markdown-like text
 * (headings, links, form fields, list items), the final URL and a PNG screenshot; a page that
 * cannot be reached is an observation with {@code error} set, not a failure of the action.
 *
 * <p>{@code browser_actions} is a small script, one call a line: {@code goto("url")},
 * {@code click("css selector or visible text")}, {@code fill("selector, name, placeholder or label", "value")},
 * {@code scroll(dx, dy)} or {@code scroll("down"|"up")}, {@code go_back()}, {@code go_forward()}, {@code noop()}.
 */
public final class BrowserPlugin implements Plugin {

    public static final String NAME = "browser";
    private static final List<String> BINARIES = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser",
            "/usr/bin/google-chrome");

    private static final String FIND = "(t) => { let el = null; try { el = document.querySelector(t); } catch (e) {}"
            + " if (!el) { const all = [...document.querySelectorAll('a,button,input,textarea,select,label,summary,"
            + "[role=button],[onclick]')];"
            + " el = all.find(e => (e.innerText || e.value || '').trim() === t)"
            + " || all.find(e => e.name === t || e.placeholder === t || e.getAttribute('aria-label') === t)"
            + " || all.find(e => (e.innerText || '').includes(t)); }"
            + " if (el && el.tagName === 'LABEL' && el.control) el = el.control; return el; }";

    private static final String PAGE_TEXT = String.join("\n",
            "(() => {",
            "  const out = [];",
            "  const blocks = new Set(['p','div','section','article','ul','ol','table','tr','br','form','header',",
            "    'footer','main','nav','pre','blockquote','dl','dt','dd','figure','aside']);",
            "  const walk = (node) => {",
            "    if (node.nodeType === 3) { const t = node.textContent.replace(/\\s+/g, ' ');",
            "      if (t.trim()) out.push(t); return; }",
            "    if (node.nodeType !== 1) return;",
            "    const tag = node.tagName.toLowerCase();",
            "    if (['script','style','noscript','template','head'].includes(tag)) return;",
            "    const style = getComputedStyle(node);",
            "    if (style.display === 'none' || style.visibility === 'hidden') return;",
            "    const text = () => (node.innerText || '').trim();",
            "    if (/^h[1-6]$/.test(tag)) { out.push('\\n\\n' + '#'.repeat(+tag[1]) + ' ' + text() + '\\n\\n'); return; }",
            "    if (tag === 'a' && node.href) { out.push('[' + text() + '](' + node.href + ')'); return; }",
            "    if (tag === 'img') { out.push('![' + (node.alt || '') + '](' + node.src + ')'); return; }",
            "    if (tag === 'input' || tag === 'textarea' || tag === 'select') {",
            "      out.push('[' + tag + (node.type ? ' type=' + node.type : '') + (node.name ? ' name=' + node.name : '')",
            "        + (node.id ? ' id=' + node.id : '') + (node.placeholder ? ' placeholder=\"' + node.placeholder + '\"' : '')",
            "        + ' value=\"' + (node.value || '') + '\"]'); return; }",
            "    if (tag === 'button') { out.push('[button: ' + text() + ']'); return; }",
            "    if (tag === 'li') out.push('\\n- '); else if (blocks.has(tag)) out.push('\\n');",
            "    for (const child of node.childNodes) walk(child);",
            "    if (blocks.has(tag)) out.push('\\n');",
            "  };",
            "  walk(document.body || document.documentElement);",
            "  const body = out.join('').replace(/[ \\t]+\\n/g, '\\n').replace(/\\n[ \\t]+/g, '\\n')",
            "    .replace(/\\n{3,}/g, '\\n\\n').trim();",
            "  return (document.title ? '# ' + document.title + '\\n\\n' : '') + body;",
            "})()");

    /** OpenHands' browser/utils.py browse: screenshots go to {@code <workspace>/.browser_screenshots}. */
    static final String SCREENSHOTS = ".browser_screenshots";
    private static final DateTimeFormatter SCREENSHOT_NAME = DateTimeFormatter.ofPattern(
            "'screenshot_'yyyyMMdd_HHmmss_SSSSSS'.png'");

    private final Map<String, String> environment;
    private final Path workspace;
    private final Clock clock;
    private Process chromium;
    private DevTools page;
    private Path profile;

    public BrowserPlugin(Map<String, String> environment, Path workspace, Clock clock) {
        this.environment = Map.copyOf(environment);
        this.workspace = workspace;
        this.clock = clock;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized void start() throws PluginException {
        String binary = BINARIES.stream().filter(b -> Files.isExecutable(Path.of(b))).findFirst()
                .orElseThrow(() -> new PluginException("no Chromium in this image (looked for " + BINARIES + "): use "
                        + "the browser image variant or add the Debian package chromium with sandbox.extraDeps"));
        try {
            profile = Files.createTempDirectory("dockyard-chromium");
            ProcessBuilder builder = new ProcessBuilder(binary, "--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--mute-audio",
                    "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                    "--user-data-dir=" + profile, "--window-size=1280,800", "about:blank");
            builder.environment().clear();
            builder.environment().putAll(environment);
            builder.redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile());
            chromium = builder.start();
            Path portFile = profile.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!Files.exists(portFile) || Files.readString(portFile).lines().count() < 2) {
                if (!chromium.isAlive() || System.nanoTime() > deadline) {
                    throw new PluginException("Chromium did not start" + lastWords());
                }
                Thread.sleep(50);
            }
            int port = Integer.parseInt(Files.readString(portFile).lines().findFirst().orElseThrow().strip());
            String list = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/json/list")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
            JsonArray targets;
            try (var reader = Jsonp.createReader(new StringReader(list))) {
                targets = reader.readArray();
            }
            String socket = targets.getValuesAs(JsonObject.class).stream()
                    .filter(t -> "page".equals(t.getString("type", ""))).findFirst()
                    .orElseThrow(() -> new PluginException("Chromium has no page to drive")).getString("webSocketDebuggerUrl");
            page = DevTools.connect(URI.create(socket));
            page.call("Page.enable", JsonValue.EMPTY_JSON_OBJECT, Duration.ofSeconds(10));
        } catch (PluginException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PluginException("interrupted while starting Chromium");
        } catch (Exception e) {
            throw new PluginException("Chromium could not be driven: " + e.getMessage() + lastWords(), e);
        }
    }

    private String lastWords() {
        try {
            String log = Files.readString(profile.resolve("chromium.log")).strip();
            return log.isEmpty() ? "" : "; its output:\n" + (log.length() > 2000 ? log.substring(log.length() - 2000) : log);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    @Override
    public boolean serves(Action action) {
        return action instanceof BrowseUrlAction || action instanceof BrowseInteractiveAction;
    }

    @Override
    public synchronized Observation execute(Action action, Duration timeout, Path cwd) {
        if (action instanceof BrowseUrlAction browse) {
            String call = "goto(" + Jsonp.createValue(browse.url()) + ")";
            String error = run(List.of(call), timeout);
            // OpenHands' action_str, unescaped as its f-string writes it
            return observe("browse", "goto(\"" + browse.url() + "\")", error);
        }
        BrowseInteractiveAction interactive = (BrowseInteractiveAction) action;
        List<String> calls = interactive.browserActions().lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        String error = run(calls, timeout);
        return observe("browse_interactive", interactive.browserActions(), error);
    }

    /** Runs the calls in order; the first failure stops the script and is returned (else ""). */
    private String run(List<String> calls, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String call : calls) {
            try {
                String failure = step(call, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                if (!failure.isEmpty()) {
                    return failure;
                }
            } catch (Exception e) {
                return call + ": " + e.getMessage();
            }
        }
        return "";
    }

    private String step(String call, Duration left) throws Exception {
        int open = call.indexOf('(');
        if (open < 1 || !call.endsWith(")")) {
            return "not a browser action: " + call;
        }
        String name = call.substring(0, open).strip();
        List<Object> args = arguments(call.substring(open + 1, call.length() - 1));
        switch (name) {
            case "goto" -> {
                JsonObject result = page.call("Page.navigate", Jsonp.createObjectBuilder().add("url", text(args, 0))
                        .build(), left);
                if (result.containsKey("errorText") && !result.getString("errorText").isEmpty()) {
                    settle(left);
                    return "could not load " + text(args, 0) + ": " + result.getString("errorText");
                }
                settle(left);
            }
            case "click" -> {
                String failure = evaluate("((find, t) => { const el = find(t); if (!el) return 'no element matches '"
                        + " + JSON.stringify(t); el.scrollIntoView(); el.click(); return ''; })(" + FIND + ", "
                        + Jsonp.createValue(text(args, 0)) + ")", left);
                if (!failure.isEmpty()) {
                    return failure;
                }
                settle(left);
            }
            case "fill" -> {
                String failure = evaluate("((find, t, v) => { const el = find(t); if (!el) return 'no field matches '"
                        + " + JSON.stringify(t); el.focus(); el.value = v;"
                        + " el.dispatchEvent(new Event('input', {bubbles: true}));"
                        + " el.dispatchEvent(new Event('change', {bubbles: true})); return ''; })(" + FIND + ", "
                        + Jsonp.createValue(text(args, 0)) + ", " + Jsonp.createValue(text(args, 1)) + ")", left);
                if (!failure.isEmpty()) {
                    return failure;
                }
            }
            case "scroll" -> {
                String js;
                if (!args.isEmpty() && args.get(0) instanceof String direction) {
                    js = "window.scrollBy(0, " + (direction.equals("up") ? "-" : "") + "window.innerHeight * 0.8); ''";
                } else {
                    js = "window.scrollBy(" + number(args, 0) + ", " + number(args, 1) + "); ''";
                }
                evaluate(js, left);
            }
            case "go_back", "go_forward" -> {
                evaluate("history." + (name.equals("go_back") ? "back" : "forward") + "(); ''", left);
                Thread.sleep(150);
                settle(left);
            }
            // never past the action's own timeout: the executor runs one action at a time
            case "noop" -> Thread.sleep(Math.max(0, Math.min((long) (args.isEmpty() ? 0 : number(args, 0)),
                    left.toMillis())));
            default -> {
                return "unknown browser action '" + name + "' (goto, click, fill, scroll, go_back, go_forward, noop)";
            }
        }
        return "";
    }

    /** Waits until the document has loaded (a click may have started a navigation). */
    private void settle(Duration left) throws Exception {
        long deadline = System.nanoTime() + Math.min(left.toNanos(), Duration.ofSeconds(30).toNanos());
        Thread.sleep(50);
        while (System.nanoTime() < deadline) {
            if ("complete".equals(evaluate("document.readyState", left))) {
                return;
            }
            Thread.sleep(50);
        }
    }

    private String evaluate(String expression, Duration left) throws Exception {
        JsonObject result = page.call("Runtime.evaluate", Jsonp.createObjectBuilder().add("expression", expression)
                .add("returnByValue", true).add("awaitPromise", true).build(), left);
        if (result.containsKey("exceptionDetails")) {
            JsonObject details = result.getJsonObject("exceptionDetails");
            throw new IllegalStateException(details.containsKey("exception")
                    ? details.getJsonObject("exception").getString("description", "script error")
                    : details.getString("text", "script error"));
        }
        JsonValue value = result.getJsonObject("result").get("value");
        return value instanceof JsonString s ? s.getString() : value == null ? "" : value.toString();
    }

    /**
     * The page after the action, shaped as OpenHands' browse() builds its observation: the text
     * the agent reads is wrapped as its get_agent_obs_text wraps it, and the screenshot is also
     * saved under the workspace. There is one page, so it is the open page and the active one.
     */
    private BrowseObservation observe(String trigger, String lastAction, String error) {
        Duration read = Duration.ofSeconds(30);
        String url = "";
        String pageText;
        String screenshot = "";
        try {
            url = evaluate("location.href", read);
            pageText = evaluate(PAGE_TEXT, read);
            screenshot = "data:image/png;base64," + page.call("Page.captureScreenshot",
                    Jsonp.createObjectBuilder().add("format", "png").build(), read).getString("data");
        } catch (Exception e) {
            pageText = "";
            error = error.isEmpty() ? "The page could not be read: " + e.getMessage() : error;
        }
        String screenshotPath = screenshot.isEmpty() ? null : save(screenshot);
        String content = trigger.equals("browse")
                ? AgentText.forBrowse(url, pageText, error)
                : AgentText.forInteraction(url, screenshotPath, pageText, error);
        return new BrowseObservation(content, url, trigger, screenshot, screenshotPath, !error.isEmpty(),
                url.isEmpty() ? List.of() : List.of(url), url.isEmpty() ? -1 : 0, "", lastAction, error);
    }

    /** Writes the screenshot where OpenHands would; without a writable workspace there is no path. */
    private String save(String dataUrl) {
        try {
            Path dir = Files.createDirectories(workspace.resolve(SCREENSHOTS));
            Path file = dir.resolve(SCREENSHOT_NAME.format(LocalDateTime.now(clock)));
            Files.write(file, Base64.getDecoder().decode(dataUrl.substring(dataUrl.indexOf(',') + 1)));
            return file.toString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Python-style literals separated by commas: 'text', "text", numbers. */
    static List<Object> arguments(String source) {
        List<Object> args = new ArrayList<>();
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (Character.isWhitespace(c) || c == ',') {
                i++;
            } else if (c == '"' || c == '\'') {
                StringBuilder s = new StringBuilder();
                i++;
                while (i < source.length() && source.charAt(i) != c) {
                    char d = source.charAt(i);
                    if (d == '\\' && i + 1 < source.length()) {
                        char e = source.charAt(++i);
                        s.append(switch (e) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            default -> e;
                        });
                    } else {
                        s.append(d);
                    }
                    i++;
                }
                args.add(s.toString());
                i++;
            } else {
                int end = i;
                while (end < source.length() && source.charAt(end) != ',') {
                    end++;
                }
                String token = source.substring(i, end).strip();
                // keyword arguments (delay=100) keep their value
                token = token.contains("=") ? token.substring(token.indexOf('=') + 1).strip() : token;
                try {
                    args.add(Double.parseDouble(token));
                } catch (NumberFormatException e) {
                    args.add(token);
                }
                i = end;
            }
        }
        return args;
    }

    private static String text(List<Object> args, int index) {
        if (index >= args.size()) {
            throw new IllegalArgumentException("missing argument " + (index + 1));
        }
        Object arg = args.get(index);
        return arg instanceof Double d && d == Math.floor(d) ? String.valueOf(d.longValue()) : String.valueOf(arg);
    }

    private static double number(List<Object> args, int index) {
        return index < args.size() && args.get(index) instanceof Double d ? d : 0;
    }

    @Override
    public void close() {
        if (page != null) {
            page.close();
        }
        if (chromium != null) {
            chromium.destroy();
        }
    }
}
