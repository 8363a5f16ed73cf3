package dev.dockyard.proxy;

import dev.dockyard.jsonp.Jsonp;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The proxy's own answers: FastAPI's shape, {@code {"detail": "..."}}, which OpenHands clients read. */
final class ProxyErrors {

    private ProxyErrors() {
    }

    static void write(HttpServletResponse response, int status, String detail) throws IOException {
        if (response.isCommitted()) {
            return; // the service's answer is under way: all that is left is to cut it short
        }
        response.reset();
        response.setStatus(status);
        response.setContentType("application/json");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setCharacterEncoding("UTF-8");
        byte[] body = Jsonp.createObjectBuilder().add("detail", detail).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
