package dev.dockyard.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The feature on a real Liberty (this module's pom starts it: the control plane's runtime, servlet,
 * a static application at "/", the control plane's header limits). Every request is written to a
 * raw socket on 127.0.0.1.
 *
 * <p>Two things here rest on what no API promises, so a Liberty upgrade that changes them fails
 * this test rather than production: that the feature's container is asked before the web
 * container, and that the HTTP channel still consults the error page service
 * (docs/user-guide.md "Strict input"). A second endpoint ({@code problems.it.plain-port}) reaches the same application through
 * a virtual host the feature is not on: there Liberty answers as it does without the feature, and
 * the feature must refuse exactly the paths the web container refuses there.
 */
class TransportProblemsIT {

    private static final int PORT = Integer.getInteger("problems.it.port", 19480);
    private static final int PLAIN_PORT = Integer.getInteger("problems.it.plain-port", 19481);
    private static final Path LOG = Path.of(System.getProperty("problems.it.log",
            "target/liberty/wlp/usr/servers/problems-it/logs/messages.log"));
    private static final String WEB_CONTAINER_REFUSAL = "<H1>CWWWC0005I";

    @Test
    void shouldStartWithTheFeatureAndItsErrorPages() throws IOException {
        String log = Files.readString(LOG, StandardCharsets.ISO_8859_1);
        assertTrue(log.contains("usr:dockyardProblems-1.0"), "the feature is not installed");
        assertFalse(log.contains("dockyardProblems-1.0: this Liberty's HTTP channel"), "the error pages were not registered");
        assertFalse(log.lines().anyMatch(l -> l.contains("dockyard") && (l.contains(" E ") || l.contains(" W "))),
                "the server logged an error or a warning about the feature");
    }

    @Test
    void shouldAnswerMalformedPathsWithAProblemBeforeTheWebContainer() {
        Map<String, String> paths = new LinkedHashMap<>();
        paths.put("/api/v1/runtimes/%zz", "invalid percent-encoding");
        paths.put("/api/v1/runtimes/%00", "control character");
        paths.put("/api/%", "invalid percent-encoding");
        paths.put("/a%7f", "control character");
        paths.put("/a/../../x", "above the root");
        paths.put("/.;x/y", "dot segment");
        paths.put("/;x/y", "empty segment");
        List<String> wrong = new ArrayList<>();
        paths.forEach((path, detail) -> {
            RawExchange answer = RawExchange.get(PORT, path);
            String fault = problemFault(answer, 400, detail);
            if (fault == null && List.of("runtimes", "%zz", "%00", "%7f", "x/y").stream().anyMatch(answer.text()::contains)) {
                fault = "the answer echoes the path";
            }
            if (fault != null) {
                wrong.add(path + ": " + fault + " — got " + answer.status() + " " + answer.contentType() + " " + answer.text());
            }
            // the same path on the plain virtual host: the web container's own refusal, the case covered
            assertTrue(RawExchange.get(PLAIN_PORT, path).text().startsWith(WEB_CONTAINER_REFUSAL), path);
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void shouldLeaveEveryOtherRequestToTheWebContainer() {
        RawExchange page = RawExchange.get(PORT, "/index.html");
        assertEquals(200, page.status());
        assertTrue(page.text().contains("hello from the web container"), page.text());
        assertEquals(404, RawExchange.get(PORT, "/nope").status());
        RawExchange post = RawExchange.send(PORT, "POST /index.html;x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2"
                + "\r\nConnection: close\r\n\r\n{}");
        assertFalse(post.contentType().startsWith(TransportProblem.MEDIA_TYPE), post.contentType());
    }

    /** Generated paths of dots, slashes, semicolons and escapes: refused here exactly where the web container refuses them. */
    @Test
    void shouldRefuseExactlyThePathsTheWebContainerRefuses() {
        String[] pieces = {"/", "/", "/", ".", "..", "a", ";", "%2e", "%2E", "%2f", "%00", "%zz", "%", "%3b", "%7f",
            "%C0%AF", "+", "%25", "%1", "x;y", "%0a", "%09", "b", "%2e%2e", ";jsessionid=1"};
        Random random = new Random(17);
        TreeSet<String> corpus = new TreeSet<>();
        while (corpus.size() < 300) {
            StringBuilder path = new StringBuilder("/");
            for (int n = 1 + random.nextInt(6); n > 0; n--) {
                path.append(pieces[random.nextInt(pieces.length)]);
            }
            corpus.add(path.toString());
        }
        List<String> wrong = new ArrayList<>();
        int refused = 0;
        for (String path : corpus) {
            RawExchange plain = RawExchange.get(PLAIN_PORT, path);
            RawExchange answer = RawExchange.get(PORT, path);
            boolean webContainerRefuses = plain.text().startsWith(WEB_CONTAINER_REFUSAL);
            refused += webContainerRefuses ? 1 : 0;
            if (webContainerRefuses ? problemFault(answer, 400, null) != null : answer.status() != plain.status()
                    || answer.contentType().startsWith(TransportProblem.MEDIA_TYPE)) {
                wrong.add(path + ": web container " + plain.status() + " " + (webContainerRefuses ? "(refused)" : "")
                        + ", with the feature " + answer.status() + " " + answer.contentType());
            }
        }
        assertTrue(refused > 50 && refused < corpus.size() - 50, "an unbalanced corpus: " + refused + " refused");
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + corpus.size() + ":\n" + String.join("\n", wrong));
    }

    @Test
    void shouldAnswerTheHttpChannelsOwnRefusalsWithAProblem() {
        String host = "Host: 127.0.0.1\r\n";
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 120; i++) {
            many.append("X-H").append(i).append(": v\r\n");
        }
        Map<String, String> requests = new LinkedHashMap<>();
        requests.put("20 KB header (over limitFieldSize 16 KB)", "GET / HTTP/1.1\r\n" + host + "X-Big: " + "a".repeat(20_000) + "\r\n");
        requests.put("120 headers (over limitNumHeaders 100)", "GET / HTTP/1.1\r\n" + host + many);
        requests.put("20 KB path", "GET /" + "a".repeat(20_000) + " HTTP/1.1\r\n" + host);
        requests.put("header without colon", "GET / HTTP/1.1\r\n" + host + "NoColonHere\r\n");
        requests.put("garbage request line", "garbage\r\n");
        requests.put("space in the request target", "GET /a b HTTP/1.1\r\n" + host);
        List<String> wrong = new ArrayList<>();
        requests.forEach((name, head) -> {
            RawExchange answer = RawExchange.send(PORT, head + "Connection: close\r\n\r\n");
            int expected = name.startsWith("space") ? 505 : 400;
            String fault = problemFault(answer, expected, null);
            if (fault == null && !answer.contentType().equals(TransportProblem.MEDIA_TYPE)) {
                fault = "Content-Type has parameters";
            }
            if (fault == null && !String.valueOf(answer.body().length).equals(answer.headers().get("content-length"))) {
                fault = "Content-Length is not the body's";
            }
            if (fault != null) {
                wrong.add(name + ": " + fault + " — got " + answer.status() + " " + answer.headers() + " " + answer.text());
            }
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void shouldRefuseAmbiguousBodyFramingAndCloseTheConnection() {
        String post = "POST /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        Map<String, String> requests = new LinkedHashMap<>();
        requests.put("an unknown Transfer-Encoding beside Content-Length",
                post + "Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n\r\nhello");
        requests.put("gzip, chunked", post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n");
        requests.put("Transfer-Encoding twice", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"
                + "\r\n0\r\n\r\n");
        requests.put("Transfer-Encoding in HTTP/1.0", "POST /index.html HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        List<String> wrong = new ArrayList<>();
        requests.forEach((name, request) -> {
            // a second request right behind: the connection must end with the refusal, not serve it
            RawExchange answer = RawExchange.send(PORT, request + "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            String fault = problemFault(answer, 400, null);
            if (fault == null && answer.text().contains("HTTP/1.1 200")) {
                fault = "the request behind it was served";
            }
            if (fault != null) {
                wrong.add(name + ": " + fault + " — got " + answer.status() + " " + answer.headers() + " " + answer.text());
            }
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        // What the feature cannot see (docs/user-guide.md "Strict input"): the channel drops a Content-Length beside
        // chunked, also when the name was written "Transfer-Encoding :", reads the body as chunked and
        // closes the connection after answering, so whatever a front end took for a second request is
        // never served. Should a Liberty upgrade change that, this fails.
        for (String te : List.of("Transfer-Encoding: chunked", "Transfer-Encoding : chunked")) {
            RawExchange answer = RawExchange.send(PORT, post + te + "\r\nContent-Length: 40\r\n\r\n0\r\n\r\n"
                    + "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertEquals("close", answer.headers().getOrDefault("connection", "").toLowerCase(Locale.ROOT), te);
            assertEquals(1, answer.text().split("hello from the web container", -1).length - 1,
                    te + ": one answer only: " + answer.text());
        }
        // chunked alone is framing the web container reads: not refused here
        RawExchange chunked = RawExchange.send(PORT, post + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "2\r\nhi\r\n0\r\n\r\n");
        assertFalse(chunked.status() == 400 && chunked.contentType().startsWith(TransportProblem.MEDIA_TYPE),
                chunked.status() + " " + chunked.text());
    }

    /** Null when the answer is the problem expected: that status, problem+json, a numeric status member equal to it. */
    private static String problemFault(RawExchange answer, int status, String detail) {
        if (answer.status() != status) {
            return "not a " + status;
        }
        if (!answer.contentType().startsWith(TransportProblem.MEDIA_TYPE)) {
            return "not problem+json";
        }
        JsonObject problem;
        try (var reader = Json.createReader(new ByteArrayInputStream(answer.body()))) {
            problem = reader.readObject();
        } catch (RuntimeException e) {
            return "the body is not a JSON object";
        }
        JsonValue member = problem.get("status");
        if (!(member instanceof JsonNumber number) || number.intValue() != status) {
            return "status member " + member + " is not the HTTP code";
        }
        if (!problem.getString("type", "").startsWith("https://dockyard.dev/problems/") || problem.getString("title", "").isEmpty()) {
            return "type or title missing";
        }
        if (detail != null && !problem.getString("detail", "").contains(detail)) {
            return "the detail does not say '" + detail + "'";
        }
        return null;
    }
}
