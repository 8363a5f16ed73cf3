package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServiceRouteTest {

    static final String RID = "rt-0123456789abcdef";

    @Test
    void shouldLeavePathsThatAreNoRuntimesAlone() {
        for (String path : new String[] {"/", "", "/api/v1/runtimes", "/runtime-api/start", "/health", "/rt-123",
                "/rt-0123456789ABCDEF/x", "/rt-0123456789abcdef0/x", "/xrt-0123456789abcdef", "/api/v1/" + RID,
                "/rt-0123456789abcdefx"}) {
            assertEquals(Optional.empty(), ServiceRoute.parse(path), path);
        }
        assertEquals(Optional.empty(), ServiceRoute.parse(null));
    }

    @Test
    void shouldSendEverythingElseToTheMainServiceWithoutTheRuntimeId() {
        assertRoute("/" + RID, "main", "/" + RID, "/");
        assertRoute("/" + RID + "/", "main", "/" + RID, "/");
        assertRoute("/" + RID + "/alive", "main", "/" + RID, "/alive");
        assertRoute("/" + RID + "/api/conversations/1/events", "main", "/" + RID, "/api/conversations/1/events");
        assertRoute("/" + RID + "/vscodex", "main", "/" + RID, "/vscodex");
        assertRoute("/" + RID + "/work-10/a", "main", "/" + RID, "/work-10/a");
        assertRoute("/" + RID + "/work-3", "main", "/" + RID, "/work-3");
        assertRoute("/" + RID + "/a%2Fb/c", "main", "/" + RID, "/a%2Fb/c");
    }

    @Test
    void shouldSendVsCodeItsPathAsItIs() {
        assertRoute("/" + RID + "/vscode", "vscode", "", "/" + RID + "/vscode");
        assertRoute("/" + RID + "/vscode/", "vscode", "", "/" + RID + "/vscode/");
        assertRoute("/" + RID + "/vscode/static/out/main.js", "vscode", "", "/" + RID + "/vscode/static/out/main.js");
        assertRoute("/" + RID + "/vscode/connection_token/x", "vscode", "", "/" + RID + "/vscode/connection_token/x");
    }

    @Test
    void shouldSendTheLegacyVsCodeTokenEndpointToTheMainService() {
        assertRoute("/" + RID + "/vscode/connection_token", "main", "/" + RID, "/vscode/connection_token");
    }

    @Test
    void shouldStripTheWorkerPrefix() {
        assertRoute("/" + RID + "/work-1", "work-1", "/" + RID + "/work-1", "/");
        assertRoute("/" + RID + "/work-1/", "work-1", "/" + RID + "/work-1", "/");
        assertRoute("/" + RID + "/work-2/app/index.html", "work-2", "/" + RID + "/work-2", "/app/index.html");
    }

    @Test
    void shouldKnowTheHealthProbesThatNeedNoKey() {
        for (String probe : new String[] {"/alive", "/health", "/ready", "/server_info"}) {
            ServiceRoute route = ServiceRoute.parse("/" + RID + probe).orElseThrow();
            assertTrue(route.isHealthProbe("GET"), probe);
            assertTrue(route.isHealthProbe("HEAD"), probe);
            assertFalse(route.isHealthProbe("POST"), probe);
            assertFalse(route.isHealthProbe("DELETE"), probe);
        }
        for (String other : new String[] {"/alive/", "/alive/x", "/api/alive", "/", "/work-1/alive", "/vscode/alive",
                "/healthz"}) {
            assertFalse(ServiceRoute.parse("/" + RID + other).orElseThrow().isHealthProbe("GET"), other);
        }
    }

    @Test
    void shouldNameTheRuntimeByTheHostInSubdomainMode() {
        assertEquals(new ServiceRoute(RID, "main", "", "/api/x", true),
                ServiceRoute.ofHost(RID + ".localhost:9081", "/api/x").orElseThrow());
        assertEquals(new ServiceRoute(RID, "main", "", "/", true), ServiceRoute.ofHost(RID, "").orElseThrow());
        assertEquals(new ServiceRoute(RID, "vscode", "", "/" + RID + "/vscode/", true),
                ServiceRoute.ofHost("VSCODE-" + RID.toUpperCase().replace("RT-", "rt-") + ".Sandboxes.Example.com",
                        "/" + RID + "/vscode/").orElseThrow());
        assertEquals(new ServiceRoute(RID, "work-2", "", "/a%2Fb", true),
                ServiceRoute.ofHost("work-2-" + RID + ".dy.test:19081", "/a%2Fb").orElseThrow());
        // the host names the runtime: a path naming another one is only a path
        assertEquals(new ServiceRoute(RID, "main", "", "/rt-00000000000000b2/x", true),
                ServiceRoute.ofHost(RID + ".dy.test", "/rt-00000000000000b2/x").orElseThrow());
        assertEquals("/", ServiceRoute.ofHost(RID + ".dy.test", "/x").orElseThrow().runtimeRoot());
        assertTrue(ServiceRoute.ofHost(RID + ".dy.test", "/alive").orElseThrow().isHealthProbe("GET"));
        for (String host : new String[] {"127.0.0.1:9081", "localhost", "dy.test", "x-" + RID + ".dy.test",
                "work-3-" + RID + ".dy.test", RID + "0.dy.test", "rt-0123.dy.test", "a." + RID + ".dy.test",
                RID + ".dy.test:x", "[::1]:9081", ""}) {
            assertEquals(Optional.empty(), ServiceRoute.ofHost(host, "/"), host);
        }
        assertEquals(Optional.empty(), ServiceRoute.ofHost(null, "/"));
    }

    private static void assertRoute(String path, String service, String prefix, String forwardPath) {
        ServiceRoute route = ServiceRoute.parse(path).orElseThrow(() -> new AssertionError(path));
        assertEquals(new ServiceRoute(RID, service, prefix, forwardPath), route, path);
    }
}
