package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.DisposableControlPlane;
import it.dev.dockyard.support.DockyardApi;
import it.dev.dockyard.support.RawHttp;
import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 17, strict input: a corpus of malformed and hostile requests, sent over a raw socket to the
 * control plane on 127.0.0.1 while one runtime is READY. Every answer must be a 4xx problem+json
 * whose numeric {@code status} is the HTTP code (never a 5xx, never HTML or an empty body), nothing
 * may be created, the server must log no unexpected failure, and the runtime must still be READY
 * and answer an action afterwards.
 *
 * <p>A few requests are refused by Liberty before any application code runs (its HTTP channel and
 * the web container's URI decoding): the user feature usr:dockyardProblems-1.0 answers those with
 * problems too. They are kept apart in {@link #transportCorpus()} because they depend on that
 * feature and on Liberty internals (docs/user-guide.md "Strict input"), and one keeps its status, 505.
 *
 * <p>On the disposable control plane, which no other suite uses meanwhile: the runtimes counted and
 * the failures its log holds are this suite's only.
 */
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class HostileInputIT {

    private static final DockyardApi API = DisposableControlPlane.api();
    private static final String KEY = System.getProperty("dockyard.admin-key", "it-admin-key-not-a-secret");
    private static final RawHttp HTTP = new RawHttp(DisposableControlPlane.server().port());
    private static final int MB = 1024 * 1024;

    private static String runtimeId;

    /** One request of the corpus; {@code expected} 0 means any 4xx, {@code detail} a fragment the answer must say. */
    record Case(String name, String head, byte[] body, int expected, String detail) {
    }

    @BeforeAll
    static void provisionOneRuntime() {
        DockyardApi.Answer created = API.provision(Json.createObjectBuilder()
                .add("conversationId", "it-hostile-" + UUID.randomUUID()).build(), 120);
        assertEquals(201, created.status(), created.body());
        runtimeId = created.json().getString("id");
    }

    @AfterAll
    static void removeIt() {
        if (runtimeId != null) {
            API.delete("runtimes/" + runtimeId);
        }
    }

    @Test
    void shouldAnswerEveryHostileRequestWithA4xxProblemAndLeaveTheRuntimeUntouched() throws IOException {
        List<Case> corpus = corpus(runtimeId);
        assertTrue(corpus.size() >= 100, "the corpus has " + corpus.size() + " requests");
        int runtimesBefore = API.get("runtimes").json().getJsonArray("runtimes").size();
        long failuresLoggedBefore = unexpectedFailuresLogged();

        List<String> wrong = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        for (Case c : corpus) {
            RawHttp.Answer answer = HTTP.send(c.head(), c.body());
            table.append(String.format("%-60s %d %s%n", c.name(), answer.status(), answer.contentType()));
            String problem = problemFault(c, answer);
            if (problem != null) {
                wrong.add(c.name() + ": " + problem + " — got " + answer.status() + " " + answer.contentType() + " "
                        + abbreviate(answer.body()));
            }
        }
        System.out.println("HostileInputIT corpus (" + corpus.size() + " requests):\n" + table);
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + corpus.size() + " answers are wrong:\n"
                + String.join("\n", wrong));

        assertEquals(runtimesBefore, API.get("runtimes").json().getJsonArray("runtimes").size(),
                "no hostile request may create (or remove) a runtime");
        assertEquals(failuresLoggedBefore, unexpectedFailuresLogged(), "the server logged an unexpected failure");
        JsonObject runtime = API.get("runtimes/" + runtimeId).json();
        assertEquals("READY", runtime.getString("status"), runtime.toString());
        JsonObject observation = API.act(runtimeId, DockyardApi.run("echo still-here"));
        assertTrue(observation.getString("content").contains("still-here"), observation.toString());
    }

    @Test
    void shouldAnswerWhatLibertyRefusesBeforeTheApplicationWithAProblem() {
        List<String> wrong = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        for (Case c : transportCorpus()) {
            RawHttp.Answer answer = HTTP.send(c.head(), c.body());
            table.append(String.format("%-60s %d %s%n", c.name(), answer.status(), answer.contentType()));
            String problem = answer.status() != c.expected() ? "expected " + c.expected() : problemBodyFault(c, answer);
            if (problem != null) {
                wrong.add(c.name() + ": " + problem + " — got " + answer.status() + " " + answer.contentType() + " "
                        + abbreviate(answer.body()) + " — is usr:dockyardProblems-1.0 installed (docs/user-guide.md \"Strict input\")?");
            }
        }
        System.out.println("HostileInputIT, refused by Liberty before the application:\n" + table);
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertEquals("READY", API.get("runtimes/" + runtimeId).json().getString("status"));
    }

    /** Null when the answer is a right one: a 4xx problem+json with a numeric status equal to the code. */
    private static String problemFault(Case c, RawHttp.Answer answer) {
        if (answer.status() < 400 || answer.status() > 499) {
            return "not a 4xx";
        }
        if (c.expected() != 0 && answer.status() != c.expected()) {
            return "expected " + c.expected();
        }
        return problemBodyFault(c, answer);
    }

    /** Null when the answer is problem+json with a numeric status equal to the code, a type, a title and the detail expected. */
    private static String problemBodyFault(Case c, RawHttp.Answer answer) {
        if (!answer.contentType().startsWith("application/problem+json")) {
            return "not problem+json";
        }
        JsonObject problem;
        try (var reader = Json.createReader(new StringReader(answer.body()))) {
            problem = reader.readObject();
        } catch (RuntimeException e) {
            return "the body is not a JSON object";
        }
        JsonValue status = problem.get("status");
        if (!(status instanceof JsonNumber n) || n.intValue() != answer.status()) {
            return "status member " + status + " is not the HTTP code";
        }
        if (!problem.containsKey("type") || !problem.containsKey("title")) {
            return "type or title missing";
        }
        if (answer.body().contains("at dev.dockyard") || answer.body().contains("RESTEASY")
                || answer.body().contains("Exception")) {
            return "internals leak";
        }
        if (c.detail() != null && !problem.getString("detail", "").contains(c.detail())) {
            return "detail does not say '" + c.detail() + "'";
        }
        return null;
    }

    private static long unexpectedFailuresLogged() throws IOException {
        Path log = DisposableControlPlane.serverLog();
        if (!Files.exists(log)) {
            return 0;
        }
        try (var lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            return lines.filter(l -> l.contains("Unexpected failure") || l.contains("Request failed")).count();
        }
    }

    // ---- the corpus ---------------------------------------------------------------------------

    static List<Case> corpus(String id) {
        List<Case> c = new ArrayList<>();
        String rt = "/api/v1/runtimes";
        String act = rt + "/" + id + "/actions";
        // bodies of the wrong shape where an object is expected
        for (String body : new String[] {"[1,2,3]", "[]", "\"text\"", "42", "null", "true"}) {
            c.add(json("provision body " + body, "POST", rt, body, 400, "must be a JSON object"));
        }
        c.add(json("action body []", "POST", act, "[]", 400, "must be a JSON object"));
        c.add(json("action body [1,2,3]", "POST", act, "[1,2,3]", 400, "must be a JSON object"));
        c.add(json("runtime-api start []", "POST", "/runtime-api/start", "[]", 400, "must be a JSON object"));
        c.add(json("runtime-api pause []", "POST", "/runtime-api/pause", "[]", 400, "must be a JSON object"));
        c.add(json("quota [1,2,3]", "PUT", "/api/v1/users/it-hostile-nobody/quota", "[1,2,3]", 400, "must be a JSON object"));
        c.add(json("pool []", "PUT", "/api/v1/pools/it-hostile-pool", "[]", 400, "must be a JSON object"));
        c.add(json("image build []", "POST", "/api/v1/images/builds", "[]", 400, "must be a JSON object"));
        c.add(json("migrate [1]", "POST", rt + "/" + id + "/migrate", "[1]", 400, "must be a JSON object"));
        // malformed JSON
        c.add(json("not JSON", "POST", rt, "{not json", 400, "not valid JSON"));
        c.add(json("trailing comma", "POST", rt, q("{`conversationId`:`c`,}"), 400, "not valid JSON"));
        c.add(json("two documents", "POST", rt, "{} {}", 400, "not valid JSON"));
        c.add(json("unterminated string", "POST", act, "{\"action\":\"run", 400, "not valid JSON"));
        c.add(json("duplicate conversationId", "POST", rt, q("{`conversationId`:`a`,`conversationId`:`../b`}"), 400,
                "appears twice"));
        c.add(json("duplicate action", "POST", act, q("{`action`:`run`,`action`:`read`,`args`:{}}"), 400, "appears twice"));
        // nesting
        c.add(json("20,000 nested arrays", "POST", rt, "[".repeat(20_000) + "]".repeat(20_000), 400, "nests deeper"));
        c.add(json("20,000 nested objects", "POST", rt, "{\"a\":".repeat(20_000) + "1" + "}".repeat(20_000), 400,
                "nests deeper"));
        c.add(json("action args nested 100", "POST", act, q("{`action`:`run`,`args`:") + "[".repeat(100) + "]".repeat(100)
                + "}", 400, "nests deeper"));
        c.add(json("runtime-api start nested 40", "POST", "/runtime-api/start", "{\"environment\":".repeat(40) + "{}"
                + "}".repeat(40), 400, "nests deeper"));
        // unknown and misspelt fields
        c.add(json("sandbox.memoryMB", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`memoryMB`:4096}}"), 400,
                "sandbox.memoryMB (did you mean sandbox.memoryMb?)"));
        c.add(json("conversationID", "POST", rt, q("{`conversationID`:`c`}"), 400, "conversationID"));
        c.add(json("llm.api_key", "POST", rt, q("{`conversationId`:`c`,`llm`:{`api_key`:`k`}}"), 400, "llm.api_key"));
        c.add(json("repository.ref", "POST", rt, q("{`conversationId`:`c`,`repository`:{`url`:`https://x.invalid/y.git`,"
                + "`ref`:`main`}}"), 400, "repository.ref"));
        c.add(json("sandbox.extraDeps.pip", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`extraDeps`:{`pip`:[]}}}"),
                400, "sandbox.extraDeps.pip"));
        c.add(json("sandbox.cpu", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`cpu`:2}}"), 400, "sandbox.cpus"));
        c.add(json("quota maxRuntime", "PUT", "/api/v1/users/it-hostile-nobody/quota", q("{`maxRuntime`:3}"), 400,
                "maxRuntimes"));
        c.add(json("user roles", "POST", "/api/v1/users", q("{`userId`:`it-hostile-u`,`roles`:`admin`}"), 400, "roles"));
        c.add(json("pool memoryMB", "PUT", "/api/v1/pools/it-hostile-pool", q("{`size`:1,`memoryMB`:512}"), 400,
                "memoryMb"));
        c.add(json("credential valu", "PUT", "/api/v1/credentials/IT_HOSTILE", q("{`type`:`secret`,`valu`:`x`}"), 400,
                "did you mean value"));
        c.add(json("image build forse", "POST", "/api/v1/images/builds", q("{`baseImage`:`debian:12`,`forse`:true}"), 400,
                "did you mean force"));
        c.add(json("snapshot nam", "POST", rt + "/" + id + "/snapshots", q("{`nam`:`x`}"), 400, "did you mean name"));
        c.add(json("fork conversationid", "POST", rt + "/" + id + "/fork", q("{`conversationid`:`x`}"), 400,
                "did you mean conversationId"));
        c.add(json("migrate nodes", "POST", rt + "/" + id + "/migrate", q("{`nodes`:`node2`}"), 400, "did you mean node"));
        c.add(json("runtime-api sesion_id", "POST", "/runtime-api/start", q("{`image`:`a/b`,`session_id`:`s`,"
                + "`sesion_id`:`t`}"), 400, "did you mean session_id"));
        c.add(json("runtime-api stop extra", "POST", "/runtime-api/stop", q("{`runtime_id`:`x`,`force`:true}"), 400, "force"));
        // ids outside the safe alphabet
        String[] badIds = {"../etc/passwd", "a/b", "a..b", "\\u202Egnp.exe", "bidi\\u2066isolate", "lrm\\u200F",
            "nul\\u0000", "new\\nline", "with space", "", "\\ud800", "x".repeat(201), ".hidden", "-dash", "caf\\u00e9"};
        for (String bad : badIds) {
            // a lone surrogate is refused by the body's reader, before any member is read (I-JSON)
            c.add(json("conversationId " + printable(bad), "POST", rt, "{\"conversationId\":\"" + bad + "\"}", 400,
                    bad.isEmpty() ? "conversationId" : bad.equals("\\ud800") ? "lone surrogate"
                            : "conversationId must be an id"));
        }
        c.add(raw("conversationId invalid UTF-8", "POST", rt, "application/json",
                bytes("{\"conversationId\":\"", new byte[] {(byte) 0xC0, (byte) 0xAF}, "\"}"), 400, "not valid UTF-8"));
        c.add(raw("member name invalid UTF-8", "POST", rt, "application/json",
                bytes("{\"", new byte[] {(byte) 0xFF, (byte) 0xFE}, "\":1}"), 400, "not valid UTF-8"));
        c.add(raw("action invalid UTF-8", "POST", act, "application/json",
                bytes("{\"action\":\"run\",\"args\":{\"command\":\"echo ", new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                        "\"}}"), 400, "not valid UTF-8"));
        c.add(json("workspace ../x", "POST", rt, q("{`conversationId`:`c`,`workspace`:`../x`}"), 400, "workspace"));
        c.add(json("fromSnapshot bidi", "POST", rt, q("{`conversationId`:`c`,`fromSnapshot`:`snap-\\u202E1`}"), 400,
                "fromSnapshot"));
        c.add(json("node ../x", "POST", rt, q("{`conversationId`:`c`,`node`:`../x`}"), 400, "node"));
        c.add(json("fork conversationId ../x", "POST", rt + "/" + id + "/fork", q("{`conversationId`:`../x`}"), 400,
                "conversationId"));
        c.add(json("snapshot name bidi", "POST", rt + "/" + id + "/snapshots", q("{`name`:`a\\u202Eb`}"), 400, "name"));
        c.add(json("user ../x", "POST", "/api/v1/users", q("{`userId`:`../x`}"), 400, "userId"));
        c.add(json("runtime-api session_id ../x", "POST", "/runtime-api/start", q("{`image`:`a/b`,`session_id`:`../x`}"),
                400, "session_id"));
        c.add(json("runtime-api session_id bidi", "POST", "/runtime-api/start",
                q("{`image`:`a/b`,`session_id`:`a\\u202Eb`}"), 400, "session_id"));
        c.add(json("runtime-api stop ../x", "POST", "/runtime-api/stop", q("{`runtime_id`:`../x`}"), 400, "runtime_id"));
        // path ids
        for (String path : new String[] {rt + "/a%E2%80%AEb", rt + "/a..b", rt + "/" + "x".repeat(201),
            rt + "/a%20b", "/api/v1/workspaces/ws%E2%81%A6x", "/api/v1/snapshots/..x", "/runtime-api/sessions/a%E2%80%AEb",
            "/runtime-api/runtime/a..b"}) {
            c.add(raw("GET " + abbreviate(path), "GET", path, null, new byte[0], 400, "must be an id"));
        }
        c.add(json("pool name bidi", "PUT", "/api/v1/pools/p%E2%80%AEx", q("{`size`:1}"), 400, "must be an id"));
        c.add(json("quota user a..b", "PUT", "/api/v1/users/a..b/quota", q("{`maxRuntimes`:1}"), 400, "must be an id"));
        c.add(raw("path ..%2F..%2Fetc", "GET", rt + "/..%2F..%2Fetc", null, new byte[0], 400, null));
        c.add(raw("path invalid UTF-8 %C0%AF", "GET", rt + "/%C0%AF", null, new byte[0], 400, null));
        // wrong types
        c.add(json("memoryMb lots", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`memoryMb`:`lots`}}"), 400, "memoryMb"));
        c.add(json("memoryMb 4096.5", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`memoryMb`:4096.5}}"), 400, "memoryMb"));
        c.add(json("memoryMb 1e999999999", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`memoryMb`:1e999999999}}"), 400,
                "out of range"));
        c.add(json("memoryMb 99999999999", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`memoryMb`:99999999999}}"), 400,
                "memoryMb"));
        c.add(json("50-digit number", "POST", rt, "{\"conversationId\":\"c\",\"sandbox\":{\"cpus\":" + "9".repeat(50)
                + "}}", 400, "characters"));
        c.add(json("cpus 1e400", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`cpus`:1e400}}"), 400, "cpus"));
        c.add(json("cpus -1", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`cpus`:-1}}"), 400, "cpus"));
        c.add(json("cpus string", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`cpus`:`1`}}"), 400, "cpus"));
        c.add(json("timeoutSeconds 0", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`timeoutSeconds`:0}}"), 400,
                "timeoutSeconds"));
        c.add(json("sandbox array", "POST", rt, q("{`conversationId`:`c`,`sandbox`:[]}"), 400, "sandbox"));
        c.add(json("sandbox string", "POST", rt, q("{`conversationId`:`c`,`sandbox`:`big`}"), 400, "sandbox"));
        c.add(json("env array", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`env`:[`A=1`]}}"), 400, "env"));
        c.add(json("env value number", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`env`:{`A`:1}}}"), 400, "env"));
        c.add(json("env name 1BAD", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`env`:{`1BAD`:`x`}}}"), 400, "env"));
        c.add(json("plugins string", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`plugins`:`jupyter`}}"), 400, "plugins"));
        c.add(json("plugins unknown", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`plugins`:[`nope`]}}"), 400, "plugins"));
        c.add(json("image invalid", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`image`:`Not A Valid/Image!!`}}"), 400,
                "image"));
        c.add(json("replace yes", "POST", rt, q("{`conversationId`:`c`,`replace`:`yes`}"), 400, "replace"));
        c.add(json("keepAlive string", "POST", rt, q("{`conversationId`:`c`,`sandbox`:{`keepAlive`:`true`}}"), 400,
                "keepAlive"));
        c.add(json("agent number", "POST", rt, q("{`conversationId`:`c`,`agent`:5}"), 400, "agent"));
        c.add(json("agent unknown", "POST", rt, q("{`conversationId`:`c`,`agent`:`NoSuchAgent`}"), 400, "agent"));
        c.add(json("llm string", "POST", rt, q("{`conversationId`:`c`,`llm`:`key`}"), 400, "llm"));
        c.add(json("conversationId number", "POST", rt, q("{`conversationId`:7}"), 400, "conversationId"));
        c.add(json("quota maxCpus lots", "PUT", "/api/v1/users/it-hostile-nobody/quota", q("{`maxCpus`:`lots`}"), 400,
                "maxCpus"));
        c.add(json("quota maxRuntimes lots", "PUT", "/api/v1/users/it-hostile-nobody/quota", q("{`maxRuntimes`:`lots`}"),
                400, "maxRuntimes"));
        c.add(json("quota maxRuntimes -1", "PUT", "/api/v1/users/it-hostile-nobody/quota", q("{`maxRuntimes`:-1}"), 400,
                "maxRuntimes"));
        c.add(raw("quota empty body", "PUT", "/api/v1/users/it-hostile-nobody/quota", "application/json", new byte[0], 400,
                "body is required"));
        c.add(json("user role root", "POST", "/api/v1/users", q("{`userId`:`it-hostile-u`,`role`:`root`}"), 400, "role"));
        c.add(json("user role 5", "POST", "/api/v1/users", q("{`userId`:`it-hostile-u`,`role`:5}"), 400, "role"));
        c.add(json("pool size lots", "PUT", "/api/v1/pools/it-hostile-pool", q("{`size`:`lots`}"), 400, "size"));
        c.add(json("credential value 5", "PUT", "/api/v1/credentials/IT_HOSTILE", q("{`type`:`secret`,`value`:5}"), 400,
                "value"));
        c.add(json("runtime-api resource_factor lots", "POST", "/runtime-api/start",
                q("{`image`:`a/b`,`session_id`:`s`,`resource_factor`:`lots`}"), 400, "resource_factor"));
        c.add(json("runtime-api resource_factor 2^32+1", "POST", "/runtime-api/start",
                q("{`image`:`a/b`,`session_id`:`s`,`resource_factor`:4294967297}"), 400, "resource_factor"));
        // actions
        c.add(raw("action empty body", "POST", act, "application/json", new byte[0], 400, "action dict is required"));
        c.add(json("action {}", "POST", act, "{}", 400, null));
        c.add(json("action unknown kind", "POST", act, q("{`action`:`launch_missiles`,`args`:{}}"), 400, null));
        c.add(json("action command number", "POST", act, q("{`action`:`run`,`args`:{`command`:1}}"), 400, null));
        c.add(json("action args string", "POST", act, q("{`action`:`run`,`args`:`ls`}"), 400, null));
        c.add(raw("action X-Request-ID 300", "POST", act, "application/json",
                q("{`action`:`run`,`args`:{`command`:`true`}}").getBytes(StandardCharsets.UTF_8), 400, "X-Request-ID",
                "X-Request-ID: " + "r".repeat(300)));
        c.add(raw("action X-Request-ID space", "POST", act, "application/json",
                q("{`action`:`run`,`args`:{`command`:`true`}}").getBytes(StandardCharsets.UTF_8), 400, "X-Request-ID",
                "X-Request-ID: a b"));
        // sizes
        c.add(raw("action 20 MB", "POST", act, "application/json", bigAction(20 * MB), 413, "larger than"));
        c.add(chunked("action 20 MB chunked", "POST", act, bigAction(20 * MB), 413));
        c.add(raw("provision 3 MB", "POST", rt, "application/json", bigAction(3 * MB), 413, "larger than"));
        c.add(chunked("provision 3 MB chunked", "POST", rt, bigAction(3 * MB), 413));
        c.add(raw("declared 50 MB, sent 2 bytes", "POST", rt, "application/json", "{}".getBytes(StandardCharsets.UTF_8),
                413, "larger than", "X-Override-Length: 52428800"));
        c.add(raw("migrate 3 MB", "POST", rt + "/" + id + "/migrate", "application/json", bigAction(3 * MB), 413, null));
        c.add(raw("runtime-api start 3 MB", "POST", "/runtime-api/start", "application/json", bigAction(3 * MB), 413, null));
        c.add(raw("malformed chunk length", "POST", rt, "application/json",
                "zz\r\n{}\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 400, null, "X-Chunked: raw"));
        // query parameters
        c.add(raw("audit limit=-5", "GET", rt + "/" + id + "/audit?limit=-5", null, new byte[0], 400, "limit"));
        c.add(raw("audit limit=0", "GET", rt + "/" + id + "/audit?limit=0", null, new byte[0], 400, "limit"));
        c.add(raw("audit limit=abc", "GET", rt + "/" + id + "/audit?limit=abc", null, new byte[0], 400, "limit"));
        c.add(raw("audit limit=99999999999", "GET", rt + "/" + id + "/audit?limit=99999999999", null, new byte[0], 400,
                "limit"));
        c.add(raw("audit limit=%zz", "GET", rt + "/" + id + "/audit?limit=%zz", null, new byte[0], 400, null));
        c.add(raw("all audit limit=-5", "GET", "/api/v1/audit?limit=-5", null, new byte[0], 400, "limit"));
        c.add(raw("all audit since=yesterday", "GET", "/api/v1/audit?since=yesterday", null, new byte[0], 400, "since"));
        c.add(raw("all audit userId=../x", "GET", "/api/v1/audit?userId=..%2Fx", null, new byte[0], 400, "userId"));
        c.add(raw("runtimes status=SLEEPING", "GET", rt + "?status=SLEEPING", null, new byte[0], 400, "status"));
        c.add(raw("runtimes conversationId=../x", "GET", rt + "?conversationId=..%2Fx", null, new byte[0], 400,
                "conversationId"));
        c.add(raw("delete keepWorkspace=maybe", "DELETE", rt + "/" + id + "?keepWorkspace=maybe", null, new byte[0], 400,
                "keepWorkspace"));
        // media types, methods, paths, keys
        c.add(raw("provision text/plain", "POST", rt, "text/plain", "{}".getBytes(StandardCharsets.UTF_8), 415, null));
        c.add(raw("provision application/xml", "POST", rt, "application/xml", "<a/>".getBytes(StandardCharsets.UTF_8), 415,
                null));
        c.add(raw("action no Content-Type", "POST", act, null, "{}".getBytes(StandardCharsets.UTF_8), 415, null));
        c.add(raw("Accept text/html", "GET", rt, null, new byte[0], 406, null, "Accept: text/html"));
        c.add(raw("runtime-api Accept application/xml", "GET", "/runtime-api/list", null, new byte[0], 406, null,
                "Accept: application/xml"));
        c.add(raw("PATCH runtimes", "PATCH", rt, null, new byte[0], 405, null));
        c.add(raw("PUT runtimes", "PUT", rt, "application/json", "{}".getBytes(StandardCharsets.UTF_8), 405, null));
        c.add(raw("unknown API path", "GET", "/api/v1/nope", null, new byte[0], 404, null));
        c.add(raw("unknown runtime-api path", "GET", "/runtime-api/nope", null, new byte[0], 404, null));
        c.add(raw("unknown path", "GET", "/nope", null, new byte[0], 404, null));
        // ("/" itself is no longer a 404: it leads to the operations console)
        c.add(raw("DELETE unknown path", "DELETE", "/wp-admin/x.php", null, new byte[0], 404, null));
        c.add(raw("10,000-character path", "GET", "/" + "a".repeat(10_000), null, new byte[0], 404, null));
        c.add(raw("the error page itself", "GET", "/.dockyard/error", null, new byte[0], 404, null));
        // two Content-Type headers (issue 26, item 11b): which one is honoured would be anyone's guess
        c.add(raw("provision with two Content-Types", "POST", rt, "application/json",
                "{}".getBytes(StandardCharsets.UTF_8), 400, "more than one Content-Type", "Content-Type: text/plain"));
        c.add(raw("action with two Content-Types", "POST", act, "application/json",
                "{}".getBytes(StandardCharsets.UTF_8), 400, "more than one Content-Type",
                "Content-Type: application/json"));
        c.add(raw("runtime-api start with two Content-Types", "POST", "/runtime-api/start", "application/json",
                "{}".getBytes(StandardCharsets.UTF_8), 400, "more than one Content-Type", "Content-Type: text/plain"));
        c.add(new Case("no API key", "GET " + rt + " HTTP/1.1\r\nHost: 127.0.0.1\r\n", new byte[0], 401, null));
        c.add(new Case("wrong API key", "GET " + rt + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: wrong\r\n", new byte[0],
                401, null));
        return c;
    }

    /** What Liberty refuses before any application code; usr:dockyardProblems-1.0 answers (docs/user-guide.md "Strict input"). */
    static List<Case> transportCorpus() {
        List<Case> c = new ArrayList<>();
        String key = "X-API-Key: " + KEY + "\r\n";
        String head = "The request line or a header";
        c.add(new Case("path %zz", "GET /api/v1/runtimes/%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key, new byte[0], 400,
                "invalid percent-encoding"));
        c.add(new Case("path %00", "GET /api/v1/runtimes/%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key, new byte[0], 400,
                "control character"));
        c.add(new Case("path ending in %", "GET /api/v1/runtimes/% HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key, new byte[0], 400,
                "invalid percent-encoding"));
        c.add(new Case("path above the root", "GET /api/../../v1/runtimes HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key,
                new byte[0], 400, "above the root"));
        c.add(new Case("path .;", "GET /api/.;x/v1/runtimes HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key, new byte[0], 400,
                "dot segment"));
        // over dockyard.http.max-header-bytes (16 KB), under Liberty's own default (32 KB): the setting applies
        c.add(new Case("20 KB header", "GET /api/v1/runtimes HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key + "X-Big: "
                + "a".repeat(20_000) + "\r\n", new byte[0], 400, head));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 120; i++) {
            many.append("X-H").append(i).append(": v\r\n");
        }
        c.add(new Case("120 headers (over dockyard.http.max-headers)", "GET /api/v1/runtimes HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key + many, new byte[0],
                400, head));
        c.add(new Case("20 KB path", "GET /" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n", new byte[0],
                400, head));
        c.add(new Case("header without colon", "GET /api/v1/runtimes HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key
                + "NoColonHere\r\n", new byte[0], 400, head));
        c.add(new Case("garbage request line", "garbage\r\n", new byte[0], 400, head));
        // ambiguous body framing (issue 26, item 10): refused by the feature before Liberty picks a framing.
        // Not here: "Transfer-Encoding : chunked" and chunked beside Content-Length, which Liberty has
        // normalised before the feature sees them (docs/user-guide.md "Strict input"; TransportProblemsIT checks
        // that Liberty reads them as chunked and closes the connection)
        String post = "POST /api/v1/runtimes HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key
                + "Content-Type: application/json\r\n";
        c.add(new Case("unknown Transfer-Encoding beside Content-Length", post
                + "Transfer-Encoding: xchunked\r\nContent-Length: 2\r\n", "{}".getBytes(StandardCharsets.UTF_8), 400,
                "chunked alone"));
        c.add(new Case("Transfer-Encoding gzip, chunked", post + "Transfer-Encoding: gzip, chunked\r\n",
                "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 400, "chunked alone"));
        // read as version "times": Liberty's 505 stays, only its body is a problem
        c.add(new Case("space in the request target", "GET /api/v1/run times HTTP/1.1\r\nHost: 127.0.0.1\r\n" + key,
                new byte[0], 505, "HTTP/1.0 or HTTP/1.1"));
        return c;
    }

    private static Case json(String name, String method, String path, String body, int expected, String detail) {
        return raw(name, method, path, "application/json", body.getBytes(StandardCharsets.UTF_8), expected, detail);
    }

    private static Case raw(String name, String method, String path, String contentType, byte[] body, int expected,
                            String detail, String... headers) {
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + KEY
                + "\r\n");
        if (contentType != null) {
            head.append("Content-Type: ").append(contentType).append("\r\n");
        }
        String length = String.valueOf(body.length);
        boolean chunkedRaw = false;
        for (String h : headers) {
            if (h.startsWith("X-Override-Length: ")) {
                length = h.substring("X-Override-Length: ".length());
            } else if (h.equals("X-Chunked: raw")) {
                chunkedRaw = true;
            } else {
                head.append(h).append("\r\n");
            }
        }
        if (chunkedRaw) {
            head.append("Transfer-Encoding: chunked\r\n");
        } else if (body.length > 0 || !method.equals("GET")) {
            head.append("Content-Length: ").append(length).append("\r\n");
        }
        return new Case(name, head.toString(), body, expected, detail);
    }

    private static Case chunked(String name, String method, String path, byte[] body, int expected) {
        ByteArrayOutputStream encoded = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += 65536) {
            int n = Math.min(65536, body.length - at);
            encoded.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            encoded.write(body, at, n);
            encoded.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        encoded.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + KEY
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n";
        return new Case(name, head, encoded.toByteArray(), expected, "larger than");
    }

    /** A run action whose command is {@code size} bytes of an echo. */
    private static byte[] bigAction(int size) {
        String prefix = "{\"action\":\"run\",\"args\":{\"command\":\"echo ";
        String suffix = "\"}}";
        return (prefix + "x".repeat(size - prefix.length() - suffix.length()) + suffix).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String before, byte[] middle, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
        out.writeBytes(middle);
        out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** JSON written with backticks for quotes, to keep the corpus readable. */
    private static String q(String text) {
        return text.replace('`', '"');
    }

    private static String printable(String text) {
        return abbreviate(text.replaceAll("[^\\x20-\\x7E]", "?"));
    }

    private static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "…" : text;
    }
}
