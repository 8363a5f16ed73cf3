package dev.dockyard.backend.kubernetes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
        KubernetesBackend backend = cluster.backend(MockCluster.settings());
        backend.create(MockCluster.spec("r1", "sk-1"));
        cluster.markRunning("dockyard-r1", "10.0.0.1");

        backend.restore("dockyard-r1", "/workspace", new ByteArrayInputStream(archive));

        assertEquals(1, execs.get(), "one exec, not sent again: " + commands);
        assertTrue(commands.get(0).contains("command=tar"), commands.get(0));
        byte[] received = tar.received();
        assertEquals(0, received.length % PodTar.RECORD, "tar reads whole records: " + received.length);
        assertArrayEquals(archive, Arrays.copyOf(received, archive.length));
        for (int i = archive.length; i < received.length; i++) {
            assertEquals(0, received[i], "the last record is filled up with zeros");
        }
    }

    /**
     * tar in a pod behind a slow kubelet: it takes stdin frames (channel 0) a millisecond each on
     * the server's event loop, so the socket backs up, and answers success once the archive and its
     * padding are in.
     */
    private static final class SlowTar extends WebSocketListener {

        private final long expected;
        private final ByteArrayOutputStream stdin = new ByteArrayOutputStream();
        private boolean ended;

        SlowTar(int archiveLength) {
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
                socket.send(frame(3, "{\"metadata\":{},\"status\":\"Success\"}".getBytes(StandardCharsets.UTF_8)));
                socket.close(1000, "");
                return;
            }
            try {
                Thread.sleep(1);
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
    }
}
