package it.dev.dockyard.support;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real TCP forwarder on 127.0.0.1, owned by the test that made it. Pointed at a Docker engine's
 * unix socket, a backend node configured with it reaches the engine while it runs; once
 * {@link #close()}d, the node's engine is gone for the control plane (connections refused) while the
 * engine and its containers are untouched. Pointed at several control planes, it is the load
 * balancer in front of them (the soak's two-control-plane profile): each connection goes to the
 * next target in turn that takes it and is not {@linkplain #drain drained}.
 *
 * <p>JDK only: {@code docker/soak.sh} compiles it beside the soak harness, without the test classpath.
 */
public final class Forwarder implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MS = 2000;

    private final List<SocketAddress> targets;
    private final ServerSocketChannel server;
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private final Set<SocketAddress> drained;
    private final AtomicInteger next = new AtomicInteger();
    private final Thread acceptor;

    private Forwarder(List<SocketAddress> targets, int port, Set<SocketAddress> drained) throws IOException {
        this.targets = List.copyOf(targets);
        this.drained = drained;
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        acceptor = new Thread(this::accept, "forwarder-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** To an engine's unix socket, on a port of its own. */
    public static Forwarder to(Path socket) throws IOException {
        return new Forwarder(List.of(UnixDomainSocketAddress.of(socket)), 0, ConcurrentHashMap.newKeySet());
    }

    /** To an engine's unix socket on a port fixed beforehand (a node configured before the forwarder runs). */
    public static Forwarder on(Path socket, int port) throws IOException {
        return new Forwarder(List.of(UnixDomainSocketAddress.of(socket)), port, ConcurrentHashMap.newKeySet());
    }

    /** In front of several servers on loopback ports: each connection to the next one that takes it. */
    public static Forwarder across(int port, List<Integer> targetPorts) throws IOException {
        return new Forwarder(targetPorts.stream().map(p -> (SocketAddress) new InetSocketAddress(
                InetAddress.getLoopbackAddress(), p)).toList(), port, ConcurrentHashMap.newKeySet());
    }

    /** A closed forwarder back: a new one on the same port to the same targets (HealthIT, the soak). */
    public Forwarder reopen(int port) throws IOException {
        return new Forwarder(targets, port, drained);
    }

    /** New connections no longer go to the server on this loopback port (a load balancer's drain). */
    public void drain(int targetPort) {
        drained.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
    }

    /** New connections go to the server on this loopback port again. */
    public void admit(int targetPort) {
        drained.remove(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
    }

    /** The port it listens on. */
    public int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /** The Docker host to configure: {@code tcp://127.0.0.1:<port>}. */
    public String dockerHost() throws IOException {
        return "tcp://127.0.0.1:" + port();
    }

    private void accept() {
        while (server.isOpen()) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!server.isOpen()) {
                    return;
                }
                // out of file descriptors, say: the port stays bound, so keep accepting after a pause
                pause();
                continue;
            }
            SocketChannel target = connect();
            if (target == null) {
                // no target takes it: the client sees its connection closed, as behind a balancer with none up
                closeQuietly(client);
                continue;
            }
            open.add(client);
            open.add(target);
            if (!server.isOpen()) {
                // accepted while close() ran: its sweep of the open connections may have missed this
                // one, which would go on forwarding (a kept-alive client answered through a "closed"
                // forwarder: PlacementIT, 2026-11-30)
                closeQuietly(client);
                closeQuietly(target);
                return;
            }
            AtomicInteger ended = new AtomicInteger();
            pump(client, target, ended);
            pump(target, client, ended);
        }
    }

    /** The next target in turn that takes a connection, skipping drained ones; null when none does. */
    private SocketChannel connect() {
        int first = Math.floorMod(next.getAndIncrement(), targets.size());
        for (int i = 0; i < targets.size(); i++) {
            SocketAddress address = targets.get((first + i) % targets.size());
            if (targets.size() > 1 && drained.contains(address)) {
                continue;
            }
            SocketChannel channel = null;
            try {
                if (address instanceof UnixDomainSocketAddress) {
                    channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                    channel.connect(address);
                } else {
                    // bounded: one target whose backlog is full must not hold up every new connection
                    channel = SocketChannel.open();
                    channel.socket().connect(address, CONNECT_TIMEOUT_MS);
                }
                return channel;
            } catch (IOException refused) {
                if (channel != null) {
                    closeQuietly(channel);
                }
            }
        }
        return null;
    }

    /** One direction of a connection; the pair is closed once both directions ended, or at an error. */
    private void pump(SocketChannel from, SocketChannel to, AtomicInteger ended) {
        Thread pump = new Thread(() -> {
            boolean broken = false;
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
                broken = true;
            }
            if (ended.incrementAndGet() == 2 || broken) {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "forwarder-pump");
        pump.setDaemon(true);
        pump.start();
    }

    /** Stops forwarding: the listening socket and every forwarded connection close. */
    @Override
    public void close() {
        closeQuietly(server);
        open.forEach(Forwarder::closeQuietly);
        open.clear();
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes, ignoring a failure to: closing is all that is wanted (AnswerDroppingForwarder's too). */
    static void closeQuietly(Channel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all that is wanted
        }
    }
}
