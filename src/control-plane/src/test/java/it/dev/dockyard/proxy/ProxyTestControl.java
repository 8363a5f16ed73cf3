package it.dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import jakarta.inject.Inject;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The test's handle on {@link FakeProxyTargets} from outside the server: {@code PUT
 * /proxy-test/targets/{id}} with a properties body (state, publicKey, internalKey, service.NAME=URL)
 * sets a runtime; {@code GET /proxy-test/traffic} lists the traffic reports, one a line;
 * {@code DELETE /proxy-test/traffic} forgets them. Its path is no runtime's, so it also shows that
 * the proxy leaves other paths alone.
 */
@WebServlet("/proxy-test/*")
public class ProxyTestControl extends HttpServlet {

    @Inject
    FakeProxyTargets targets;

    @Override
    protected void doPut(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String id = request.getPathInfo().substring("/targets/".length());
        Properties p = new Properties();
        p.load(request.getInputStream());
        Map<String, URI> services = new HashMap<>();
        p.stringPropertyNames().stream().filter(n -> n.startsWith("service."))
                .forEach(n -> services.put(n.substring("service.".length()), URI.create(p.getProperty(n))));
        targets.put(new ProxyTarget(id, "user-1", ProxyTarget.State.valueOf(p.getProperty("state")),
                p.getProperty("publicKey"), p.getProperty("internalKey"), services));
        response.setStatus(204);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        PrintWriter out = response.getWriter();
        for (FakeProxyTargets.Traffic t : targets.traffic()) {
            out.println(t.runtimeId() + " " + t.service() + " " + t.websocket() + " " + t.bytesIn() + " " + t.bytesOut());
        }
    }

    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) {
        targets.clearTraffic();
        response.setStatus(204);
    }
}
