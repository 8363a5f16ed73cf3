package dev.dockyard.proxy;

import dev.dockyard.application.remote.ProxyTarget;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.WebConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One open tunnel: the client's upgraded connection and a socket to the service, joined both ways.
 * Bytes pass untouched (WebSocket frames, or whatever protocol was agreed), with one exception: a
 * WebSocket client that signs in with its first message ({@link FirstMessageAuth}) gets nothing
 * of the service's and sends it nothing until that message was checked and its key exchanged.
 *
 * <p>Client to sandbox is a {@link ReadListener}, never a blocking read: Liberty's upgraded input
 * stream holds its lock while a read blocks, and closing the connection needs that lock, so a
 * thread parked in a read would keep the tunnel from closing while the client is quiet. Sandbox to
 * client is a thread of its own blocked on the socket, and the only one that writes to the client
 * or closes its connection: every way a session ends (the client leaves, the sandbox leaves, the
 * application stops) closes the socket, and that thread then finishes the session. If the service
 * was speaking WebSocket and left without a close frame, it sends one first ({@link WebSocketFrames}).
 * When both directions have stopped the session is reported once.
 */
final class WebSocketTunnel {

    private final ProxyExchange exchange;
    private final Socket socket;
    private final InputStream fromService;
    private final boolean websocket;
    private final Consumer<WebSocketTunnel> onEnd;
    private final AtomicLong bytesIn = new AtomicLong();
    private final AtomicLong bytesOut = new AtomicLong();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicBoolean socketClosed = new AtomicBoolean();
    private final AtomicBoolean connectionClosed = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final WebSocketFrames frames = new WebSocketFrames();
    private volatile boolean clientGone;
    private volatile String closeReason = "Runtime service closed the connection";
    private volatile int closeCode = WebSocketFrames.GOING_AWAY;

    /** Where a tunnel stands with its client's sign-in. */
    enum SignIn {
        /** Its first message is awaited: nothing passes either way. */
        AWAITED,
        /** Signed in, or never asked to (a key came with the handshake): bytes pass. */
        DONE,
        /** Refused, timed out or ended before it: nothing ever passes. */
        FAILED
    }

    private final AtomicReference<SignIn> signIn = new AtomicReference<>(SignIn.DONE);
    /** Reads the first message while the sign-in is awaited (touched by the reading thread only). */
    private final FirstMessageAuth firstMessage;
    /** Frees what a tunnel waiting for its sign-in holds, once it left that state. */
    private final Runnable leftPending;
    /** Open once the sign-in is no longer awaited: until then the sandbox's bytes wait. */
    private final CountDownLatch settled = new CountDownLatch(1);
    private volatile WebConnection connection;

    /**
     * @param fromService the socket's input, positioned after the service's 101 response head
     * @param websocket   whether the agreed protocol is WebSocket
     * @param onEnd       called once when the session is over (reports traffic, frees the slot)
     * @param leftPending called once when a tunnel admitted to sign in with its first message
     *                    ({@link Admission.Admitted#awaitsFirstMessage()}) leaves that state
     */
    WebSocketTunnel(ProxyExchange exchange, Socket socket, InputStream fromService, boolean websocket,
                    Consumer<WebSocketTunnel> onEnd, Runnable leftPending) {
        this.exchange = exchange;
        this.socket = socket;
        this.fromService = fromService;
        this.websocket = websocket;
        this.onEnd = onEnd;
        this.leftPending = leftPending;
        ProxyTarget target = exchange.target();
        if (exchange.admitted().awaitsFirstMessage()) {
            // the proxy agreed to no extension for such a tunnel (WebSocketTunnels), so frames are plain
            firstMessage = new FirstMessageAuth(target.publicKey(), target.internalKey());
            signIn.set(websocket ? SignIn.AWAITED : SignIn.FAILED);
            if (!websocket) {
                // no sign-in message in another protocol (WebSocketTunnels answers such a 101 itself)
                leftPending.run();
                settled.countDown();
            }
        } else {
            firstMessage = null;
            settled.countDown();
        }
    }

    /** Whether the client has yet to sign in with its first message. */
    boolean awaitsFirstMessage() {
        return signIn.get() == SignIn.AWAITED;
    }

    /** Whether bytes ever passed for the client: it signed in, or needed not. */
    boolean signedIn() {
        return signIn.get() == SignIn.DONE;
    }

    /**
     * The client did not sign in in time (or with the wrong key): the sandbox side goes, and the
     * client gets the agent server's own close code for it.
     */
    void refuseSignIn() {
        if (signIn.compareAndSet(SignIn.AWAITED, SignIn.FAILED)) {
            closeCode = FirstMessageAuth.AUTH_FAILED;
            closeReason = "Authentication failed";
            leftPending.run();
            closeSocket();
        }
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

    /** Starts both directions on the connection the container upgraded. */
    void start(WebConnection upgraded, Executor threads) {
        connection = upgraded;
        ServletInputStream fromClient;
        OutputStream toClient;
        OutputStream toService;
        try {
            fromClient = upgraded.getInputStream();
            toClient = upgraded.getOutputStream();
            toService = socket.getOutputStream();
        } catch (IOException e) {
            closeSocket();
            closeConnection();
            end();
            return;
        }
        running.set(2);
        try {
            threads.execute(() -> serviceToClient(toClient));
        } catch (RejectedExecutionException e) {
            closeSocket();
            closeConnection();
            directionEnded();
        }
        try {
            fromClient.setReadListener(new ClientToService(fromClient, toService));
        } catch (RuntimeException e) {
            clientGone = true;
            closeSocket();
            directionEnded();
        }
    }

    /** Ends the session from outside (the application stops): the service side goes, the rest follows. */
    void shutdown(String reason) {
        closeReason = reason;
        closeSocket();
    }

    /** Ends it at once, client connection included, for a session that did not finish on its own. */
    void forceClose() {
        closeSocket();
        closeConnection();
        if (running.get() == 0) {
            end();
        }
    }

    private void serviceToClient(OutputStream toClient) {
        try {
            settled.await();
            if (signIn.get() == SignIn.DONE) {
                bytesOut.addAndGet(Pump.copy(fromService, toClient, websocket ? frames::consume : null));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Pump.Failure e) {
            bytesOut.addAndGet(e.copied());
            if (!e.reading()) {
                clientGone = true;
            }
        } finally {
            closeSocket();
            if (websocket && !clientGone && frames.atBoundary() && !frames.closeSeen()) {
                try {
                    toClient.write(WebSocketFrames.closeFrame(closeCode, closeReason));
                    toClient.flush();
                } catch (IOException e) {
                    // the client is gone too
                }
            }
            closeConnection();
            directionEnded();
        }
    }

    /** Client to sandbox: whatever the client sent is written to the socket as it arrives. */
    private final class ClientToService implements ReadListener {
        private final ServletInputStream in;
        private final OutputStream out;
        private final byte[] buffer = new byte[Pump.BUFFER];
        private final AtomicBoolean done = new AtomicBoolean();

        ClientToService(ServletInputStream in, OutputStream out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public void onDataAvailable() {
            try {
                while (!done.get() && in.isReady()) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        ended(true);
                        return;
                    }
                    // counted before the write: a service that drops the connection on what it just got
                    // ends the session from the other direction, and its report must not miss this
                    bytesIn.addAndGet(n);
                    SignIn state = signIn.get();
                    if (state == SignIn.DONE) {
                        out.write(buffer, 0, n);
                    } else if (state == SignIn.FAILED) {
                        ended(false);
                        return;
                    } else {
                        FirstMessageAuth.Result result = firstMessage.offer(buffer, 0, n);
                        if (result.outcome() == FirstMessageAuth.Outcome.NEED_MORE) {
                            continue;
                        }
                        if (result.outcome() == FirstMessageAuth.Outcome.REFUSED
                                || !signIn.compareAndSet(SignIn.AWAITED, SignIn.DONE)) {
                            // refused, or its time was up a moment ago
                            refuseSignIn();
                            ended(false);
                            return;
                        }
                        leftPending.run();
                        out.write(result.toService());
                        settled.countDown();
                    }
                    out.flush();
                }
            } catch (IOException | RuntimeException e) {
                ended(!socketClosed.get()); // a failed write to a closed socket is the sandbox leaving
            }
        }

        @Override
        public void onAllDataRead() {
            ended(true);
        }

        @Override
        public void onError(Throwable t) {
            ended(true);
        }

        private void ended(boolean clientLeft) {
            if (done.compareAndSet(false, true)) {
                if (clientLeft) {
                    clientGone = true;
                }
                closeSocket(); // the service side stops, and with it the other direction
                directionEnded();
            }
        }
    }

    private void directionEnded() {
        if (running.decrementAndGet() <= 0) {
            end();
        }
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            onEnd.accept(this);
        }
    }

    private void closeSocket() {
        if (socketClosed.compareAndSet(false, true)) {
            closeQuietly(socket);
        }
        // however it ends, a sign-in still awaited has failed, and the thread that finishes the session goes on
        if (signIn.compareAndSet(SignIn.AWAITED, SignIn.FAILED)) {
            leftPending.run();
        }
        settled.countDown();
    }

    private void closeConnection() {
        WebConnection c = connection;
        if (c != null && connectionClosed.compareAndSet(false, true)) {
            closeQuietly(c);
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
