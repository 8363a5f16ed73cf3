package dev.dockyard.backend;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * How a sandbox runs Dockyard's executor, chosen when the sandbox starts: the image's (and a local
 * node's bundle's) {@code bin/start-executor} reads {@link #VARIABLE}. {@link #EMBEDDED}, the
 * default, runs the executor WAR on the JDK's own HTTP server (about 0.3 s to boot, about 30 MiB);
 * {@link #LIBERTY} deploys it on the minified Open Liberty (2–3 s, 100 MiB and more), for an
 * organisation that standardises on its app server or wants its monitoring inside the sandbox.
 *
 * <p>A node's setting ({@code dockyard.node.<name>.executor-server}, {@link #of(Config, String)})
 * is the mode of the runtimes whose request names none ({@code sandbox.executorServer}); a runtime
 * keeps the mode it was given for its whole life (revived, hibernated, migrated), and a warm pool's
 * members are of one mode, which claims match. It is no secret: Docker and Kubernetes sandboxes
 * carry it in their environment, where {@code docker inspect} shows it. A sandbox of another
 * image's own program runs no executor and has no mode; a {@code cli} node serves the protocol
 * in-process, with no executor process to start, and ignores it.
 */
public enum ExecutorServer {
    EMBEDDED, LIBERTY;

    /** The variable the sandbox's start script reads; absent, it starts {@link #EMBEDDED}. */
    public static final String VARIABLE = "DOCKYARD_EXECUTOR_SERVER";

    /** What a node that names none runs, and what the start script does without the variable. */
    public static final ExecutorServer DEFAULT = EMBEDDED;

    /** The names a request or a setting may give. */
    public static final List<String> NAMES = Arrays.stream(values()).map(ExecutorServer::apiName).toList();

    /** The name in the API, in MP Config and in {@link #VARIABLE}: lower case. */
    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode of an API or configuration name; empty for any other. */
    public static Optional<ExecutorServer> named(String name) {
        return Arrays.stream(values()).filter(m -> m.apiName().equals(name)).findFirst();
    }

    /**
     * The node's {@code dockyard.node.<name>.executor-server} ({@link #DEFAULT} when unset); an
     * unknown value stops the node's configuration rather than guessing.
     */
    public static ExecutorServer of(Config config, String node) {
        String key = "dockyard.node." + node + ".executor-server";
        Optional<String> value = config.getOptionalValue(key, String.class).map(String::strip)
                .filter(v -> !v.isEmpty());
        if (value.isEmpty()) {
            return DEFAULT;
        }
        return named(value.get()).orElseThrow(() -> new IllegalStateException(key + ": '" + value.get()
                + "' is not one of " + NAMES));
    }
}
