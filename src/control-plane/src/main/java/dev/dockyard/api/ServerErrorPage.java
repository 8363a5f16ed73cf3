package dev.dockyard.api;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The error page (WEB-INF/web.xml) for what the servlet container answers itself, outside any
 * JAX-RS application: unknown paths, malformed percent-encoding it reports with sendError,
 * failures before a resource runs. It turns the container's HTML into the same problem+json the
 * API gives. The request's URI and the container's message are not echoed: both may carry what a
 * hostile caller sent. What Liberty's HTTP transport answers before the web container sees the
 * request (oversized headers) never reaches here; docs/user-guide.md ("Strict input") lists those answers.
 */
@WebServlet(name = "DockyardErrorPage", urlPatterns = ServerErrorPage.PATH)
public class ServerErrorPage extends HttpServlet {

    private static final long serialVersionUID = 1L;
    static final String PATH = "/.dockyard/error";

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        // asked for directly, this path is just one more that does not exist
        int status = code instanceof Integer c ? c : HttpServletResponse.SC_NOT_FOUND;
        Problem.Kind kind = Problem.Kind.forStatus(status);
        Problem problem = Problem.of(kind, detail(kind));
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(kind.status());
        response.setContentType(Problem.MEDIA_TYPE.toString());
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(problem.toJson().toString());
    }

    private static String detail(Problem.Kind kind) {
        return switch (kind) {
            case NOT_FOUND -> "No such resource; the API is under /api/v1, /runtime-api and /e2b";
            case BAD_REQUEST -> "The request is malformed (e.g. invalid percent-encoding in its path)";
            case METHOD_NOT_ALLOWED -> "This method is not allowed here";
            case INTERNAL -> "The request failed inside the control plane";
            default -> null;
        };
    }
}
