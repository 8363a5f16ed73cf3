package dev.dockyard.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The paths Open Liberty 26.0.0.3's web container refuses before picking an application, and some it
 * does not: each row was answered so by a real server without the feature (TransportProblemsIT
 * compares the two on a generated corpus).
 */
class PathRefusalsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            /api/v1/runtimes/%zz  | invalid percent-encoding
            /%                    | invalid percent-encoding
            /a%4                  | invalid percent-encoding
            /%g0                  | invalid percent-encoding
            /%%41                 | invalid percent-encoding
            /api/v1/runtimes/%00  | control character
            /a%7f                 | control character
            /a%1f/b               | control character
            /a%0a                 | control character
            /../x                 | above the root
            /..                   | above the root
            /a/../../x            | above the root
            /%2e%2e/x             | above the root
            /a/%2e%2e/%2E%2E/x    | above the root
            /a%2f..%2f..%2fx      | above the root
            /..%2Fx               | above the root
            /.;x/y                | dot segment with a path parameter
            /..;x/y               | dot segment with a path parameter
            /a/%2e;x/b            | dot segment with a path parameter
            /;x/y                 | empty segment with a path parameter
            /a/%3bx/b             | empty segment with a path parameter
            """)
    void shouldRefuseWhatTheWebContainerRefuses(String path, String what) {
        String refusal = PathRefusals.refusal(path);
        assertNotNull(refusal, path);
        assertEquals(true, refusal.contains(what), path + ": " + refusal);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/", "/api/v1/runtimes", "/api/v1/runtimes/rt-1/actions", "/index.html;x", "//index.html", "/./index.html",
        "/a/../x", "/a/..", "/.", "/a/;x", "/a+b", "/%C0%AF", "/%ff%fe", "/a%2Fb", "/x%23y", "/x%5cy", "/%2e",
        "/api/v1/runtimes/..%2Fx", "/api/v1/runtimes/%2e%2e%2F%2e%2e%2F%2e%2e%2Fx",
        "/a;%00/b", "/%0a%00/%2e%2e", "/%7f%3b%2f/../", "/a;jsessionid=1/b", "/%E2%80%AE"
    })
    void shouldLeaveEverythingElseToTheWebContainer(String path) {
        assertNull(PathRefusals.refusal(path), path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/v1/runtimes/%zz", "/secret-%00-token", "/a/../../etc/passwd"})
    void shouldNotEchoThePath(String path) {
        String detail = TransportProblem.badPath(PathRefusals.refusal(path)).json();
        for (String part : path.split("/")) {
            if (part.length() > 2) {
                assertEquals(false, detail.contains(part), detail);
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            /a%41b     | /aAb
            /%E2%82%AC | /\u20ac
            /%C0%AF    | /\ufffd\ufffd
            /a+b       | /a+b
            """)
    void shouldDecodeAsUtf8WithReplacement(String raw, String decoded) {
        assertEquals(decoded, PathRefusals.decode(raw));
    }
}
