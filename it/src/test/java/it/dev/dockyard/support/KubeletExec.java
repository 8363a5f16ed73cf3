package it.dev.dockyard.support;

import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The kubelet stand-in's side of a pod's exec subresource (test-only): the mock API server hands
 * the WebSocket of {@code GET .../pods/{name}/exec?command=...} here, and this runs the command by
 * {@code docker exec} in the pod's container, speaking the v4.channel.k8s.io protocol: stdin
 * frames (channel 0) in, stdout (1) and stderr (2) out, then the exit as a Status on channel 3.
 */
public final class KubeletExec extends WebSocketListener {

    private final String container;
    private final List<String> command;
    private final boolean stdin;
    private final ExecutorService io = Executors.newFixedThreadPool(3);
    private volatile Process process;
    private volatile OutputStream in;

    private KubeletExec(String container, List<String> command, boolean stdin) {
        this.container = container;
        this.command = command;
        this.stdin = stdin;
    }

    /** For the query of an exec request ({@code command=...&stdin=true}) into {@code container}. */
    public static KubeletExec of(String container, String query) {
        List<String> command = new ArrayList<>();
        boolean stdin = false;
        for (String pair : query.split("&")) {
            String[] kv = pair.split("=", 2);
            String value = kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "";
            if (kv[0].equals("command")) {
                command.add(value);
            } else if (kv[0].equals("stdin")) {
                stdin = Boolean.parseBoolean(value);
            }
        }
        return new KubeletExec(container, command, stdin);
    }

    @Override
    public void onOpen(WebSocket socket, Response response) {
        List<String> docker = new ArrayList<>(List.of("docker", "exec"));
        if (stdin) {
            docker.add("-i");
        }
        docker.add(container);
        docker.addAll(command);
        try {
            process = new ProcessBuilder(docker).start();
        } catch (IOException e) {
            socket.send(frame(3, status(126, e.toString())));
            socket.close(1000, "");
            return;
        }
        in = process.getOutputStream();
        if (!stdin) {
            closeQuietly(in);
        }
        var out = io.submit(() -> pump(process.getInputStream(), socket, 1));
        var err = io.submit(() -> pump(process.getErrorStream(), socket, 2));
        io.submit(() -> {
            int exit = process.waitFor();
            out.get();
            err.get();
            socket.send(frame(3, status(exit, "command terminated with non-zero exit code: " + exit)));
            socket.close(1000, "");
            return null;
        });
    }

    @Override
    public void onMessage(WebSocket socket, byte[] bytes) {
        if (bytes.length > 1 && bytes[0] == 0 && in != null) {
            try {
                in.write(bytes, 1, bytes.length - 1);
                in.flush();
            } catch (IOException e) {
                // the command ended (tar stops at the archive's end marker): the rest is not needed
            }
        }
    }

    @Override
    public void onMessage(WebSocket socket, String text) {
        onMessage(socket, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void onClosed(WebSocket socket, int code, String reason) {
        closeQuietly(in);
        io.shutdown();
    }

    private static Void pump(InputStream from, WebSocket socket, int channel) throws IOException {
        byte[] buffer = new byte[32 * 1024];
        int n;
        while ((n = from.read(buffer)) > 0) {
            socket.send(frame(channel, Arrays.copyOf(buffer, n)));
        }
        return null;
    }

    private static byte[] frame(int channel, byte[] data) {
        byte[] frame = new byte[data.length + 1];
        frame[0] = (byte) channel;
        System.arraycopy(data, 0, frame, 1, data.length);
        return frame;
    }

    private static byte[] status(int exit, String message) {
        String json = exit == 0 ? "{\"metadata\":{},\"status\":\"Success\"}"
                : "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"" + message.replace("\"", "'")
                + "\",\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\""
                + exit + "\"}]}}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static void closeQuietly(OutputStream stream) {
        try {
            if (stream != null) {
                stream.close();
            }
        } catch (IOException e) {
            // already closed
        }
    }
}
