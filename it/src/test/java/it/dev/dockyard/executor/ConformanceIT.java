package it.dev.dockyard.executor;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The protocol conformance suite: every fixture under {@code it/src/test/resources/conformance}
 * ({@code <area>-<case>.json}) is one dynamic test against one real sandbox, checking a field or a
 * text against what OpenHands' own code would send (each fixture names its {@code source}).
 *
 * <p>A fixture: {@code setup} (shell commands, each sent as a {@code run} action; an element that is
 * an object is an action dict sent as it is, e.g. one with a timeout that leaves a command
 * running), then either {@code action} (the {@code execute_action} body's action; the observation
 * is checked) or {@code request} ({@code {"method": "GET", "path": "server_info"}}: the answer is
 * checked as {@code {"status", "content_type", "json"}} or, for a zip, {@code "zip": {entry: text}}).
 * {@code expect} is matched objects member by member, arrays element by element, strings exactly
 * unless {@code "<any>"} (present, null included), {@code "<re:REGEX>"} (full match),
 * {@code "<absent>"} (the member must not be there), {@code "<int>"} or {@code "<float>"} (a number
 * written as Python writes an int, or a float: with a fraction or exponent); numbers must have
 * the same value and the same int/float form. An observation's own members, its {@code extras}
 * and a command's {@code metadata} must be exactly those the fixture names (a key it does not
 * name is a difference, so a renamed or extra key is caught); an answer to a {@code request} is
 * matched as a subset. "/workspace" anywhere stands for the sandbox's workspace. The fixtures that
 * need no plugin also run at unit speed in executor-core ({@code ConformanceFixturesTest}).
 *
 * <p>Before each fixture the shell is brought back to an idle prompt in the workspace and the
 * workspace is emptied, so fixtures do not depend on each other's order.
 */
@SandboxTest.StartedWith(image = "dockyard/sandbox-browser:latest", args = {"-e", "DOCKYARD_PLUGINS=jupyter,browser", "--memory", "2g", "--shm-size", "256m"})
class ConformanceIT extends SandboxTest {

    private static final String DIRECTORY = "conformance";

    /** How long a fixture's setup command may take: its work, not a measure. */
    private static final int SETUP_TIMEOUT_SECONDS = 120;

    @TestFactory
    Stream<DynamicTest> fixtures() throws IOException {
        List<Path> files = fixtureFiles();
        if (files.isEmpty()) {
            throw new AssertionError("no fixtures under " + DIRECTORY);
        }
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> check(file)));
    }

    private List<Path> fixtureFiles() throws IOException {
        URL dir = ConformanceIT.class.getClassLoader().getResource(DIRECTORY);
        if (dir == null) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(Path.of(dir.toURI()))) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Runs a setup command to its end. Sent as a plain {@code run}, a silent one (400 {@code touch}es
     * on a loaded machine) met the executor's 10 s no-output timeout and went on in the background
     * while the fixture's action already looked at its half-made files (the CI run of 2026-12-02
     * 18:45): blocking, with a hard timeout, it is waited for.
     */
    private void setUp(String fixture, String command) {
        JsonObject done = sandbox.run(command, SETUP_TIMEOUT_SECONDS, true);
        if (Sandbox.exitCode(done) == -1) {
            throw new AssertionError(fixture + ": its setup did not end within " + SETUP_TIMEOUT_SECONDS + " s: "
                    + command + "\n" + abbreviated(done));
        }
    }

    private void check(Path file) throws IOException {
        JsonObject fixture = parse(w(Files.readString(file))).asJsonObject();
        String name = DIRECTORY + "/" + file.getFileName();
        for (String key : List.of("source", "expect")) {
            if (!fixture.containsKey(key)) {
                throw new AssertionError(name + " has no \"" + key + "\"");
            }
        }
        sandbox.reset();
        setUp(name, "find " + sandbox.workspace + " -mindepth 1 -delete");
        for (JsonValue step : fixture.getJsonArray("setup") == null ? List.<JsonValue>of()
                : fixture.getJsonArray("setup")) {
            if (step instanceof JsonString command) {
                setUp(name, command.getString());
            } else {
                sandbox.execute(step.asJsonObject());
            }
        }
        JsonValue observed;
        Set<String> exact;
        if (fixture.containsKey("action")) {
            observed = sandbox.execute(fixture.getJsonObject("action"));
            exact = EXACT;
        } else if (fixture.containsKey("request")) {
            observed = answer(fixture.getJsonObject("request"));
            exact = Set.of();
        } else {
            throw new AssertionError(name + " has neither \"action\" nor \"request\"");
        }
        Optional<String> difference = difference("$", fixture.get("expect"), observed, exact);
        if (difference.isPresent()) {
            throw new AssertionError(name + " (from " + fixture.getString("source") + "): " + difference.get()
                    + "\nobserved: " + abbreviated(observed));
        }
    }

    private JsonObject answer(JsonObject request) {
        String method = request.getString("method", "GET");
        HttpRequest.Builder builder = sandbox.request(request.getString("path"));
        if (request.containsKey("body")) {
            builder.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(request.get("body").toString()));
        } else {
            builder.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<byte[]> response = sandbox.sendForBytes(builder);
        String type = response.headers().firstValue("Content-Type").orElse("");
        JsonObjectBuilder answer = Json.createObjectBuilder().add("status", response.statusCode())
                .add("content_type", type);
        if (type.startsWith("application/zip")) {
            answer.add("zip", unzip(response.body()));
        } else if (type.contains("json")) {
            answer.add("json", parse(new String(response.body(), StandardCharsets.UTF_8)));
        }
        return answer.build();
    }

    private static JsonObject unzip(byte[] zip) {
        JsonObjectBuilder entries = Json.createObjectBuilder();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            ZipEntry entry;
            while ((entry = in.getNextEntry()) != null) {
                entries.add(entry.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries.build();
    }

    /** Where an observation's members must be exactly those of the fixture. */
    private static final Set<String> EXACT = Set.of("$", "$.extras", "$.extras.metadata");

    /**
     * The first place where {@code observed} breaks {@code expected}, as a JSON path and why;
     * objects at the {@code exact} paths may have no member the fixture does not name.
     */
    static Optional<String> difference(String path, JsonValue expected, JsonValue observed, Set<String> exact) {
        if (expected instanceof JsonString s) {
            String want = s.getString();
            if (want.equals("<any>")) {
                return observed == null ? Optional.of(path + ": missing") : Optional.empty();
            }
            if (want.equals("<absent>")) {
                return observed == null ? Optional.empty() : Optional.of(path + ": must be absent, is " + observed);
            }
            if (observed == null) {
                return Optional.of(path + ": missing, expected " + expected);
            }
            if (want.equals("<int>") || want.equals("<float>")) {
                boolean isFloat = observed instanceof JsonNumber n && isFloat(n);
                boolean ok = observed instanceof JsonNumber && (want.equals("<float>") == isFloat);
                return ok ? Optional.empty() : Optional.of(path + ": expected " + want + ", was " + observed);
            }
            if (!(observed instanceof JsonString o)) {
                return Optional.of(path + ": expected a string " + expected + ", was " + observed);
            }
            if (want.startsWith("<re:") && want.endsWith(">")) {
                String regex = want.substring(4, want.length() - 1);
                return o.getString().matches(regex) ? Optional.empty()
                        : Optional.of(path + ": " + quote(o.getString()) + " does not match " + regex);
            }
            return want.equals(o.getString()) ? Optional.empty()
                    : Optional.of(path + ": expected " + quote(want) + " but was " + quote(o.getString()));
        }
        if (observed == null) {
            return Optional.of(path + ": missing, expected " + expected);
        }
        if (expected instanceof JsonObject e) {
            if (!(observed instanceof JsonObject o)) {
                return Optional.of(path + ": expected an object, was " + observed);
            }
            for (var member : e.entrySet()) {
                Optional<String> d = difference(path + "." + member.getKey(), member.getValue(), o.get(member.getKey()),
                        exact);
                if (d.isPresent()) {
                    return d;
                }
            }
            if (exact.contains(path)) {
                for (String key : o.keySet()) {
                    if (!e.containsKey(key)) {
                        return Optional.of(path + ": unexpected member \"" + key + "\": " + o.get(key));
                    }
                }
            }
            return Optional.empty();
        }
        if (expected instanceof JsonArray e) {
            if (!(observed instanceof JsonArray o) || o.size() != e.size()) {
                return Optional.of(path + ": expected " + e.size() + " elements " + expected + ", was " + observed);
            }
            for (int i = 0; i < e.size(); i++) {
                Optional<String> d = difference(path + "[" + i + "]", e.get(i), o.get(i), exact);
                if (d.isPresent()) {
                    return d;
                }
            }
            return Optional.empty();
        }
        if (expected instanceof JsonNumber e) {
            boolean same = observed instanceof JsonNumber o && e.bigDecimalValue().compareTo(o.bigDecimalValue()) == 0
                    && isFloat(e) == isFloat(o);
            return same ? Optional.empty() : Optional.of(path + ": expected " + expected + ", was " + observed);
        }
        // true, false, null
        return expected.equals(observed) ? Optional.empty()
                : Optional.of(path + ": expected " + expected + ", was " + observed);
    }

    /** Python's json writes a float with a fraction or an exponent, an int without. */
    private static boolean isFloat(JsonNumber n) {
        String text = n.toString();
        return text.contains(".") || text.contains("e") || text.contains("E");
    }

    private static String quote(String s) {
        return Json.createValue(s).toString();
    }

    private static String abbreviated(JsonValue value) {
        String text = value.toString();
        return text.length() <= 4000 ? text : text.substring(0, 4000) + "...";
    }

    private static JsonValue parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }
}
