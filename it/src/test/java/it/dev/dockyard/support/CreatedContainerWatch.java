package it.dev.dockyard.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.net.StandardProtocolFamily;
import java.net.URLEncoder;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watches a real engine's event stream (its API on the unix socket) for the first container
 * created with a label and inspects it the moment it exists: for a container the control plane
 * creates and, when the engine cannot start it (GPUs on a host with none), removes again.
 */
public final class CreatedContainerWatch implements AutoCloseable {

    private static final Pattern ID = Pattern.compile("\"id\":\"([0-9a-f]{64})\"");

    private final Path socket;
    private final SocketChannel events;
    private final CompletableFuture<JsonObject> inspected = new CompletableFuture<>();

    private CreatedContainerWatch(Path socket, String label) throws IOException {
        this.socket = socket;
        String filters = "{\"type\":[\"container\"],\"event\":[\"create\"],\"label\":[\"" + label + "\"]}";
        events = open(socket, "/events?filters=" + URLEncoder.encode(filters, StandardCharsets.UTF_8));
        awaitHeaders();
        Thread reader = new Thread(this::readEvents, "created-container-watch");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts watching; the stream is subscribed when this returns. */
    public static CreatedContainerWatch on(Path socket, String label) {
        try {
            return new CreatedContainerWatch(socket, label);
        } catch (IOException e) {
            throw new AssertionError("cannot watch the engine at " + socket + ": " + e, e);
        }
    }

    /** The inspection of the first container created with the label, taken as soon as it was created. */
    public JsonObject awaitInspection(Duration within) {
        try {
            return inspected.get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no container was created within " + within);
        } catch (ExecutionException e) {
            throw new AssertionError("watching the engine failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static SocketChannel open(Path socket, String path) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        // HTTP/1.0: the engine answers unchunked and closes when done
        channel.write(ByteBuffer.wrap(("GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
        return channel;
    }

    private void awaitHeaders() throws IOException {
        StringBuilder head = new StringBuilder();
        ByteBuffer one = ByteBuffer.allocate(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!head.toString().endsWith("\r\n\r\n")) {
            if (System.nanoTime() > deadline || events.read(one.clear()) < 0) {
                throw new IOException("the engine's event stream did not answer: " + head);
            }
            head.append((char) one.get(0));
        }
        if (!head.toString().startsWith("HTTP/1.0 200") && !head.toString().startsWith("HTTP/1.1 200")) {
            throw new IOException("the engine refused the event stream: " + head);
        }
    }

    private void readEvents() {
        StringBuilder text = new StringBuilder();
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        try {
            while (!inspected.isDone()) {
                int n = events.read(buffer.clear());
                if (n < 0) {
                    throw new IOException("the event stream ended");
                }
                text.append(new String(buffer.array(), 0, n, StandardCharsets.UTF_8));
                Matcher id = ID.matcher(text);
                if (id.find()) {
                    inspected.complete(inspect(id.group(1)));
                }
            }
        } catch (IOException | RuntimeException e) {
            inspected.completeExceptionally(e);
        }
    }

    private JsonObject inspect(String id) throws IOException {
        try (SocketChannel channel = open(socket, "/containers/" + id + "/json")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(65536);
            int n;
            while ((n = channel.read(buffer.clear())) >= 0) {
                out.write(buffer.array(), 0, n);
            }
            String response = out.toString(StandardCharsets.UTF_8);
            if (!response.startsWith("HTTP/1.0 200") && !response.startsWith("HTTP/1.1 200")) {
                throw new IOException("the container was gone before it could be inspected: " + response);
            }
            try (var reader = Json.createReader(new StringReader(response.substring(response.indexOf("\r\n\r\n") + 4)))) {
                return reader.readObject();
            }
        }
    }

    @Override
    public void close() {
        try {
            events.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
