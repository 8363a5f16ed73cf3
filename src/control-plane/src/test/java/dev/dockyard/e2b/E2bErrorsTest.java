package dev.dockyard.e2b;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.api.Problem;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import java.io.StringReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every error answer of E2B's API leaves as {@code {"code", "message"}}: the problems Dockyard's key
 * filter (401), JAX-RS (404, 405) and its mappers (400, 409, 429, 500) answer, and a failing backend
 * (502 in Dockyard's words) as E2B's 503.
 */
class E2bErrorsTest {

    /** A response as the filter sees it: its status and entity, and what the filter set. */
    private static Map<String, Object> filtered(int status, Object entity) {
        Map<String, Object> state = new HashMap<>();
        state.put("status", status);
        state.put("entity", entity);
        ContainerResponseContext response = (ContainerResponseContext) Proxy.newProxyInstance(
                E2bErrorsTest.class.getClassLoader(), new Class<?>[] {ContainerResponseContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getStatus" -> state.get("status");
                    case "getEntity" -> state.get("entity");
                    case "setStatus" -> {
                        state.put("status", args[0]);
                        yield null;
                    }
                    case "setEntity" -> {
                        state.put("entity", args[0]);
                        state.put("annotations", (Annotation[]) args[1]);
                        state.put("type", args[2]);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        new E2bErrors().filter(null, response);
        return state;
    }

    private static JsonObject body(Map<String, Object> state) {
        return Jsonp.createReader(new StringReader((String) state.get("entity"))).readObject();
    }

    @Test
    void shouldAnswerDockyardsProblemsAsE2bsErrorBody() {
        for (Problem.Kind kind : new Problem.Kind[] {Problem.Kind.UNAUTHORIZED, Problem.Kind.NOT_FOUND,
                Problem.Kind.METHOD_NOT_ALLOWED, Problem.Kind.VALIDATION, Problem.Kind.CONFLICT,
                Problem.Kind.QUOTA_EXCEEDED, Problem.Kind.INTERNAL}) {
            Map<String, Object> state = filtered(kind.status(),
                    Problem.of(kind, "detail of " + kind).toJson().toString());
            assertEquals(kind.status(), state.get("status"), kind.name());
            assertEquals(Jsonp.createObjectBuilder().add("code", kind.status()).add("message", "detail of " + kind)
                    .build(), body(state), kind.name());
            assertEquals(MediaType.APPLICATION_JSON_TYPE, state.get("type"));
        }
    }

    @Test
    void shouldAnswerAFailingDependencyAs503() {
        Map<String, Object> state = filtered(502, Problem.of(Problem.Kind.BACKEND_FAILED, "engine down").toJson()
                .toString());
        assertEquals(503, state.get("status"));
        assertEquals(503, body(state).getInt("code"));
        assertEquals("engine down", body(state).getString("message"));
    }

    @Test
    void shouldSayTheReasonWhenAnErrorHasNoProblemAndLeaveSuccessAlone() {
        assertEquals("Method Not Allowed", body(filtered(405, null)).getString("message"));
        assertEquals("Not Found", body(filtered(404, "plain text")).getString("message"));
        assertEquals("Not Found", body(filtered(404, "{not json")).getString("message"));
        assertEquals("HTTP 599", body(filtered(599, null)).getString("message"));
        assertEquals("Not authenticated", body(filtered(401, Problem.of(Problem.Kind.UNAUTHORIZED, null).toJson()
                .toString())).getString("message"), "no detail: the title");

        Map<String, Object> ok = filtered(201, "{\"sandboxID\":\"x\"}");
        assertEquals(201, ok.get("status"));
        assertEquals("{\"sandboxID\":\"x\"}", ok.get("entity"));
    }
}
