package it.dev.dockyard.support;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real TCP forwarder on 127.0.0.1 to a Docker engine's unix socket: a backend node pointed at
 * it reaches the engine while it runs; once {@link #close()}d, the node's engine is gone for the
 * control plane (connections refused), while the engine itself and its containers are untouched.
 */
public final class EngineForwarder implements AutoCloseable {

    private final Path socket;
    private final ServerSocketChannel server;
    private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private EngineForwarder(Path socket, int port) throws IOException {
        this.socket = socket;
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        acceptor = new Thread(this::accept, "engine-forwarder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static EngineForwarder to(Path socket) throws IOException {
        return new EngineForwarder(socket, 0);
    }

    /** One on a port fixed beforehand (the disposable control plane's node2, configured before it runs). */
    static EngineForwarder on(Path socket, int port) throws IOException {
        return new EngineForwarder(socket, port);
    }

    /** A closed forwarder's engine back: a new forwarder on the same port (HealthIT). */
    public EngineForwarder reopen(int port) throws IOException {
        return new EngineForwarder(socket, port);
    }

    /** The port it listens on. */
    public int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /** The Docker host to configure: {@code tcp://127.0.0.1:<port>}. */
    public String dockerHost() throws IOException {
        return "tcp://127.0.0.1:" + ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel client = server.accept();
                SocketChannel engine = SocketChannel.open(StandardProtocolFamily.UNIX);
                engine.connect(UnixDomainSocketAddress.of(socket));
                open.add(client);
                open.add(engine);
                if (!server.isOpen()) {
                    // accepted while close() ran: its sweep of the open connections may have missed this
                    // one, which would go on forwarding (a kept-alive client answered through a "closed"
                    // forwarder: PlacementIT, 2026-11-30)
                    closeQuietly(client);
                    closeQuietly(engine);
                    return;
                }
                pump(client, engine);
                pump(engine, client);
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void pump(SocketChannel from, SocketChannel to) {
        Thread pump = new Thread(() -> {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            try {
                while (from.read(buffer) >= 0) {
                    buffer.flip();
                    while (buffer.hasRemaining()) {
                        to.write(buffer);
                    }
                    buffer.clear();
                }
                to.shutdownOutput();
            } catch (IOException gone) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "engine-forwarder-pump");
        pump.setDaemon(true);
        pump.start();
    }

    /** Stops forwarding: the listening socket and every forwarded connection close. */
    @Override
    public void close() {
        closeQuietly(server);
        open.forEach(EngineForwarder::closeQuietly);
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Channel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all that is wanted
        }
    }
}
