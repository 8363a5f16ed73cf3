package it.dev.dockyard.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real engine, seen through the docker CLI, as an operator would look at it. */
public final class DockerCli {

    /** The second engine (backend node "node2") that docker/ensure-extra-engine.sh starts for the tests. */
    public static final String NODE2 = "unix:///var/run/dockyard-node2.sock";

    public record Result(int exitCode, String output) {
    }

    private DockerCli() {
    }

    public static Result run(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "docker";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("docker " + Arrays.toString(args) + " did not finish");
            }
            return new Result(process.exitValue(),
                    new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            throw new AssertionError("docker CLI unavailable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Runs a docker command that must succeed; its output. */
    public static String ok(String... args) {
        Result result = run(args);
        if (result.exitCode() != 0) {
            throw new AssertionError("docker " + String.join(" ", args) + " failed: " + result.output());
        }
        return result.output();
    }

    /** Names of all containers, running or not, carrying a label (key=value). */
    public static List<String> containersLabelled(String label) {
        String out = ok("ps", "-a", "--filter", "label=" + label, "--format", "{{.Names}}");
        return out.isBlank() ? List.of() : List.of(out.split("\n"));
    }

    /** Names of all volumes carrying a label (key=value). */
    public static List<String> volumesLabelled(String label) {
        String out = ok("volume", "ls", "-q", "--filter", "label=" + label);
        return out.isBlank() ? List.of() : List.of(out.split("\n"));
    }

    /** The same, on the engine at {@code host}. */
    public static List<String> containersLabelledOn(String host, String label) {
        String out = ok("-H", host, "ps", "-a", "--filter", "label=" + label, "--format", "{{.Names}}");
        return out.isBlank() ? List.of() : List.of(out.split("\n"));
    }

    /** Removes every image tagged in {@code repository} (the tests' own runtime image repository). */
    public static void removeRepository(String repository) {
        String tags = ok("images", repository, "--format", "{{.Repository}}:{{.Tag}}");
        List<String> rmi = new ArrayList<>(List.of("rmi", "-f"));
        tags.lines().filter(t -> !t.isBlank()).forEach(rmi::add);
        if (rmi.size() > 2) {
            run(rmi.toArray(String[]::new));
        }
    }

    public static String inspect(String container, String format) {
        Result result = run("inspect", "--format", format, container);
        if (result.exitCode() != 0) {
            throw new AssertionError("docker inspect " + container + ": " + result.output());
        }
        return result.output();
    }
}
