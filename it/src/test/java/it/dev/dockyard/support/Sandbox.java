package it.dev.dockyard.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonStructure;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real sandbox container started by the test (not by the control plane, so it carries no
 * Dockyard labels), with a known session key, and a client for its executor on 127.0.0.1.
 */
public final class Sandbox implements AutoCloseable {

    public static final String IMAGE = "dockyard/sandbox:latest";

    final String name;
    public final String key;
    public final URI executor;
    /** Where the runtime's workspace is: /workspace in a container, a directory of its own on a host. */
    public final String workspace;
    private final AutoCloseable remover;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Sandbox(String name, String key, URI executor, String workspace, AutoCloseable remover) {
        this.name = name;
        this.key = key;
        this.executor = executor;
        this.workspace = workspace;
        this.remover = remover;
    }

    /**
     * A runtime someone else started (the control plane on another backend, say): its executor at
     * {@code executor} with session key {@code key}, working in {@code workspace} (null: where its shell
     * starts); {@code remover}
     * removes it when the suite is done.
     */
    static Sandbox of(String name, String key, URI executor, String workspace, AutoCloseable remover) {
        Sandbox sandbox = new Sandbox(name, key, executor, workspace == null ? "/workspace" : workspace, remover);
        sandbox.awaitReady();
        if (workspace == null) {
            // the shell starts in the runtime's workspace, wherever its backend put it
            String pwd = sandbox.run("pwd").getString("content").strip();
            return new Sandbox(name, key, executor, pwd, remover);
        }
        return sandbox;
    }

    public static Sandbox start(String... extraDockerArgs) {
        return startImage(IMAGE, extraDockerArgs);
    }

    public static Sandbox startImage(String image, String... extraDockerArgs) {
        String name = "dockyard-it-sandbox-" + UUID.randomUUID().toString().substring(0, 8);
        String key = UUID.randomUUID().toString();
        List<String> args = new ArrayList<>(List.of("run", "-d", "--rm", "--name", name, "--init", "--memory", "1g",
                "--pids-limit", "1024", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "-e", "SESSION_API_KEY=" + key, "-p", "127.0.0.1::8000"));
        args.addAll(List.of(extraDockerArgs));
        args.add(image);
        docker(args.toArray(String[]::new));
        String port = docker("port", name, "8000/tcp").lines().findFirst().orElseThrow().replaceAll(".*:", "");
        Sandbox sandbox = new Sandbox(name, key, URI.create("http://127.0.0.1:" + port + "/"), "/workspace",
                () -> docker("rm", "-f", "-v", name));
        sandbox.awaitReady();
        return sandbox;
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                if (send(request("ready").GET()).statusCode() == 200) {
                    return;
                }
            } catch (AssertionError notYet) {
                // still booting
            }
            sleep(50);
        }
        throw new AssertionError("sandbox " + name + " never became ready at " + executor);
    }

    // ------------------------------------------------------------------ protocol

    public static JsonObject action(String type, JsonObjectBuilder args) {
        return Json.createObjectBuilder().add("action", type).add("args", args).build();
    }

    public static JsonObjectBuilder args() {
        return Json.createObjectBuilder();
    }

    /** POST /execute_action; fails the test unless the executor answers 200. */
    public JsonObject execute(JsonObject action) {
        HttpResponse<String> answer = executeRaw(action, null);
        if (answer.statusCode() != 200) {
            throw new AssertionError("execute_action answered " + answer.statusCode() + ": " + answer.body());
        }
        return json(answer.body());
    }

    public HttpResponse<String> executeRaw(JsonObject action, String requestId) {
        HttpRequest.Builder builder = request("execute_action").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.createObjectBuilder().add("action", action).build()
                        .toString()));
        if (requestId != null) {
            builder.header("X-Request-ID", requestId);
        }
        return send(builder);
    }

    public JsonObject run(String command) {
        return execute(action("run", args().add("command", command)));
    }

    public JsonObject run(String command, double timeout, boolean blocking) {
        return execute(Json.createObjectBuilder().add("action", "run").add("timeout", timeout)
                .add("args", args().add("command", command).add("blocking", blocking)).build());
    }

    public JsonObject input(String text) {
        return execute(action("run", args().add("command", text).add("is_input", true)));
    }

    /** POST /configure (the control plane's push of configuration after ready). */
    public HttpResponse<String> configure(JsonObject body) {
        return send(request("configure").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    /** Brings the shell back to an idle prompt in /workspace, whatever the last test left running. */
    public void reset() {
        JsonObject probe = run("cd " + workspace);
        if (exitCode(probe) != 0) {
            input("C-c");
            run("cd " + workspace);
        }
    }

    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(executor.resolve(path)).header("X-Session-API-Key", key)
                .timeout(Duration.ofSeconds(300));
    }

    public HttpResponse<String> send(HttpRequest.Builder builder) {
        try {
            return http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("executor unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public HttpResponse<byte[]> sendForBytes(HttpRequest.Builder builder) {
        try {
            return http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new AssertionError("executor unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    public static JsonObject metadata(JsonObject observation) {
        return observation.getJsonObject("extras").getJsonObject("metadata");
    }

    public static int exitCode(JsonObject observation) {
        return metadata(observation).getInt("exit_code");
    }

    public static String suffix(JsonObject observation) {
        return metadata(observation).getString("suffix");
    }

    static String docker(String... args) {
        List<String> command = new ArrayList<>(List.of("docker"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError("docker " + String.join(" ", args) + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static JsonStructure body(String text) {
        return json(text);
    }

    @Override
    public void close() {
        try {
            remover.close();
        } catch (Exception | AssertionError ignored) {
            // already gone
        }
    }
}
