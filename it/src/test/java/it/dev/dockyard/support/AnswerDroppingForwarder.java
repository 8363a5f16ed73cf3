package it.dev.dockyard.support;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real TCP forwarder on 127.0.0.1 to an HTTP server on 127.0.0.1 that can lose one answer: once
 * {@link #dropNextAnswerTo armed} with a request line prefix, the next request that starts so is
 * forwarded whole, and when its answer begins to come back both connections are closed instead
 * (the server carried the request out; the client never hears of it). Closing the forwarder makes
 * the server unreachable through it; the server itself is untouched.
 */
public final class AnswerDroppingForwarder implements AutoCloseable {

    private final int targetPort;
    private final ServerSocketChannel server;
    private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger dropped = new AtomicInteger();
    private volatile String armedPrefix;
    private final Thread acceptor;

    public AnswerDroppingForwarder(int port, int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        acceptor = new Thread(this::accept, "answer-dropping-forwarder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /** The next request whose first line starts with {@code requestLinePrefix} loses its answer. */
    public void dropNextAnswerTo(String requestLinePrefix) {
        armedPrefix = requestLinePrefix;
    }

    /** How many answers were dropped. */
    public int dropped() {
        return dropped.get();
    }

    private void accept() {
        while (server.isOpen()) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            open.add(client);
            SocketChannel target;
            try {
                target = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
            } catch (IOException serverDown) {
                // the server is down (a test stopped it): this client is refused, the next may find it back
                Forwarder.closeQuietly(client);
                continue;
            }
            open.add(target);
            AtomicBoolean dropAnswer = new AtomicBoolean();
            pump(client, target, dropAnswer, true);
            pump(target, client, dropAnswer, false);
        }
    }

    /**
     * Copies one direction. Requests (client to server) are looked at: HTTP/1.1 without pipelining
     * sends a request only once the previous answer is in, so the first bytes that come back after
     * an armed request are its answer.
     */
    private void pump(SocketChannel from, SocketChannel to, AtomicBoolean dropAnswer, boolean requests) {
        Thread pump = new Thread(() -> {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            try {
                while (from.read(buffer) >= 0) {
                    buffer.flip();
                    if (requests) {
                        String prefix = armedPrefix;
                        String head = StandardCharsets.ISO_8859_1.decode(buffer.duplicate()).toString();
                        if (prefix != null && head.startsWith(prefix)) {
                            armedPrefix = null;
                            dropAnswer.set(true);
                        }
                    } else if (dropAnswer.get()) {
                        dropped.incrementAndGet();
                        Forwarder.closeQuietly(from);
                        Forwarder.closeQuietly(to);
                        return;
                    }
                    while (buffer.hasRemaining()) {
                        to.write(buffer);
                    }
                    buffer.clear();
                }
                to.shutdownOutput();
            } catch (IOException gone) {
                Forwarder.closeQuietly(from);
                Forwarder.closeQuietly(to);
            }
        }, "answer-dropping-forwarder-pump");
        pump.setDaemon(true);
        pump.start();
    }

    @Override
    public void close() {
        Forwarder.closeQuietly(server);
        open.forEach(Forwarder::closeQuietly);
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
