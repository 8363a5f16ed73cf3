package dev.dockyard.proxy;

import jakarta.servlet.http.HttpUpgradeHandler;
import jakarta.servlet.http.WebConnection;
import java.util.concurrent.Executor;

/**
 * The servlet container's side of a tunnel: it hands over the client's connection after the 101
 * has gone out ({@link #init}) and says when it is gone ({@link #destroy}). The container creates
 * it; the proxy attaches the tunnel right after asking for the upgrade, before {@code init} runs.
 */
public class TunnelHandler implements HttpUpgradeHandler {

    private volatile WebSocketTunnel tunnel;
    private volatile Executor threads;

    void attach(WebSocketTunnel tunnel, Executor threads) {
        this.tunnel = tunnel;
        this.threads = threads;
    }

    @Override
    public void init(WebConnection connection) {
        WebSocketTunnel t = tunnel;
        if (t == null) {
            try {
                connection.close();
            } catch (Exception e) {
                // nothing to tunnel to: closing is all there is to do
            }
            return;
        }
        t.start(connection, threads);
    }

    @Override
    public void destroy() {
        WebSocketTunnel t = tunnel;
        if (t != null) {
            t.shutdown("Connection closed"); // the container is done with the client's connection
        }
    }
}
