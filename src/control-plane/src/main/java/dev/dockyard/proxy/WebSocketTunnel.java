package dev.dockyard.proxy;

import jakarta.servlet.http.WebConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One open tunnel: the client's upgraded connection and a socket to the service, joined by two pumps
 * (client to sandbox, sandbox to client), each on its own thread because both sides block. Bytes
 * pass untouched (WebSocket frames, or whatever protocol was agreed). When either side ends, both
 * are closed; when both pumps have stopped the session is over and reported once.
 */
final class WebSocketTunnel {

    private final ProxyExchange exchange;
    private final Socket socket;
    private final InputStream fromService;
    private final Consumer<WebSocketTunnel> onEnd;
    private final AtomicLong bytesIn = new AtomicLong();
    private final AtomicLong bytesOut = new AtomicLong();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile WebConnection connection;

    /**
     * @param fromService the socket's input, positioned after the service's 101 response head
     * @param onEnd       called once when the session is over (reports traffic, frees the slot)
     */
    WebSocketTunnel(ProxyExchange exchange, Socket socket, InputStream fromService, Consumer<WebSocketTunnel> onEnd) {
        this.exchange = exchange;
        this.socket = socket;
        this.fromService = fromService;
        this.onEnd = onEnd;
    }

    ProxyExchange exchange() {
        return exchange;
    }

    long bytesIn() {
        return bytesIn.get();
    }

    long bytesOut() {
        return bytesOut.get();
    }

    /** Starts both pumps on the connection the container upgraded. */
    void start(WebConnection upgraded, Executor threads) {
        connection = upgraded;
        InputStream fromClient;
        OutputStream toClient;
        OutputStream toService;
        try {
            fromClient = upgraded.getInputStream();
            toClient = upgraded.getOutputStream();
            toService = socket.getOutputStream();
        } catch (IOException e) {
            close();
            return;
        }
        running.set(2);
        try {
            threads.execute(() -> pump(fromClient, toService, bytesIn));
        } catch (RejectedExecutionException e) {
            running.set(0);
            close();
            return;
        }
        try {
            threads.execute(() -> pump(fromService, toClient, bytesOut));
        } catch (RejectedExecutionException e) {
            close(); // the first pump ends on the closed socket and ends the session
            pumpEnded();
        }
    }

    /** Closes both sides; the pumps stop on their own. Safe to call any number of times, from any thread. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            closeQuietly(socket);
            WebConnection c = connection;
            if (c != null) {
                closeQuietly(c);
            }
        }
        if (running.get() == 0) {
            end();
        }
    }

    private void pump(InputStream in, OutputStream out, AtomicLong counter) {
        try {
            counter.addAndGet(Pump.copy(in, out));
        } catch (Pump.Failure e) {
            counter.addAndGet(e.copied()); // a side went away: the usual end of a session
        } finally {
            pumpEnded();
        }
    }

    private void pumpEnded() {
        close();
        if (running.decrementAndGet() <= 0) {
            end();
        }
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            onEnd.accept(this);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed or broken: closing is all that was wanted
        }
    }
}
