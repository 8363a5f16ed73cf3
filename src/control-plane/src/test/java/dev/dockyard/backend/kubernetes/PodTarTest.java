package dev.dockyard.backend.kubernetes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.BackendException;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A workspace streamed into a pod through its exec subresource, against a kubelet that reads the
 * stream slower than the control plane writes it (a busy node, a slow link): the client must wait
 * for the socket rather than fail the send.
 */
class PodTarTest {

    private final MockCluster cluster = new MockCluster();

    @AfterEach
    void close() {
        cluster.close();
    }

    @Test
    @Timeout(120)
    void shouldSendAWholeArchiveToAKubeletThatReadsItSlowly() {
        // more than loopback's socket buffers hold, so the writer meets back-pressure
        byte[] archive = new byte[24 * 1024 * 1024 + 123];
        new Random(7).nextBytes(archive);
        List<String> commands = new CopyOnWriteArrayList<>();
        AtomicInteger execs = new AtomicInteger();
        SlowTar tar = new SlowTar(archive.length);
        cluster.exec = request -> {
            execs.incrementAndGet();
            commands.add(request.getPath());
            return tar;
        };
        KubernetesBackend backend = runningSandbox();

        backend.restore("dockyard-r1", "/workspace", new ByteArrayInputStream(archive));

        assertEquals(1, execs.get(), "one exec, not sent again: " + commands);
        assertTrue(commands.get(0).contains("command=tar"), commands.get(0));
        byte[] received = tar.received();
        assertEquals(tar.expected, received.length, "the archive, filled up to tar's whole records");
        assertArrayEquals(archive, Arrays.copyOf(received, archive.length));
        for (int i = archive.length; i < received.length; i++) {
            assertEquals(0, received[i], "the last record is filled up with zeros");
        }
    }

    @Test
    @Timeout(60)
    void shouldFailWithTarsOwnErrorWhenTarEndsWhileTheArchiveIsStillBeingSent() {
        // tar gives up on the first record, long before the archive is all sent: tar's status
        // judges the unpack, its own words say why, and the exec is not sent again
        byte[] archive = new byte[24 * 1024 * 1024];
        AtomicInteger execs = new AtomicInteger();
        cluster.exec = request -> {
            execs.incrementAndGet();
            return new WebSocketListener() {
                private boolean answered;

                @Override
                public void onMessage(WebSocket socket, byte[] bytes) {
                    if (answered) {
                        return;
                    }
                    answered = true;
                    pause(Duration.ofSeconds(3));
                    socket.send(frame(2, "tar: /nowhere: Cannot open: No such file or directory\n"
                            .getBytes(StandardCharsets.UTF_8)));
                    socket.send(frame(3, ("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"exit code 2\","
                            + "\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":\"ExitCode\","
                            + "\"message\":\"2\"}]}}").getBytes(StandardCharsets.UTF_8)));
                    socket.close(1000, "");
                }
            };
        };
        KubernetesBackend backend = runningSandbox();

        BackendException failure = assertThrows(BackendException.class,
                () -> backend.restore("dockyard-r1", "/nowhere", new ByteArrayInputStream(archive)));

        assertTrue(failure.getMessage().contains("tar in the pod failed (exit 2)"), failure.getMessage());
        assertTrue(failure.getMessage().contains("Cannot open"), failure.getMessage());
        assertEquals(1, execs.get(), "tar's own failure is not sent again");
    }

    @Test
    @Timeout(60)
    void shouldSendAgainWhenTheExecClosesWithoutTarsStatus() {
        // the whole archive went out, then the exec closed cleanly with no status (an API server
        // restarting): nothing says tar unpacked it all, so it is not taken for a success
        byte[] archive = new byte[1024 * 1024];
        new Random(11).nextBytes(archive);
        AtomicInteger execs = new AtomicInteger();
        SlowTar second = new SlowTar(archive.length);
        SlowTar silent = new SlowTar(archive.length, false);
        cluster.exec = request -> execs.incrementAndGet() > 1 ? second : silent;
        KubernetesBackend backend = runningSandbox();

        backend.restore("dockyard-r1", "/workspace", new ByteArrayInputStream(archive));

        assertEquals(2, execs.get(), "sent again after the silent close");
        assertArrayEquals(archive, Arrays.copyOf(second.received(), archive.length));
    }

    private KubernetesBackend runningSandbox() {
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r1", "sk-1"));
        cluster.markRunning("dockyard-r1", "10.0.0.1");
        return backend;
    }

    /** Holds the mock server's event loop, as a node too busy to read does. */
    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] frame(int channel, byte[] data) {
        byte[] frame = new byte[data.length + 1];
        frame[0] = (byte) channel;
        System.arraycopy(data, 0, frame, 1, data.length);
        return frame;
    }

    /**
     * tar in a pod behind a slow kubelet: it takes stdin frames (channel 0) a millisecond each on
     * the server's event loop, so the socket backs up, and answers success once the archive and its
     * padding are in (or, told so, closes the exec without a status).
     */
    private static final class SlowTar extends WebSocketListener {

        final long expected;
        private final boolean status;
        private final ByteArrayOutputStream stdin = new ByteArrayOutputStream();
        private boolean ended;

        SlowTar(int archiveLength) {
            this(archiveLength, true);
        }

        SlowTar(int archiveLength, boolean status) {
            this.status = status;
            this.expected = (archiveLength + PodTar.RECORD - 1) / PodTar.RECORD * (long) PodTar.RECORD;
        }

        synchronized byte[] received() {
            return stdin.toByteArray();
        }

        @Override
        public void onMessage(WebSocket socket, byte[] bytes) {
            synchronized (this) {
                if (ended || bytes.length < 2 || bytes[0] != 0) {
                    return;
                }
                stdin.write(bytes, 1, bytes.length - 1);
                ended = stdin.size() >= expected;
            }
            if (ended) {
                if (status) {
                    socket.send(frame(3, "{\"metadata\":{},\"status\":\"Success\"}".getBytes(StandardCharsets.UTF_8)));
                }
                socket.close(1000, "");
                return;
            }
            pause(Duration.ofMillis(1));
        }
    }
}
