package dev.dockyard.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Serves the console's files with a strict Content-Security-Policy: scripts, styles, images and
 * calls from the control plane only, no inline code, no framing. The console handles an API key,
 * so nothing foreign may run beside it. {@code /console} leads to {@code /console/}.
 */
@WebFilter(filterName = "DockyardConsoleHeaders", urlPatterns = {"/console", "/console/*"})
public class ConsoleHeaders extends HttpFilter {

    private static final long serialVersionUID = 1L;

    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'";

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if ("/console".equals(path)) {
            response.sendRedirect(request.getContextPath() + "/console/");
            return;
        }
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        // a new console version shows on the next load, without stale modules mixed in
        response.setHeader("Cache-Control", "no-cache");
        chain.doFilter(request, response);
    }
}
