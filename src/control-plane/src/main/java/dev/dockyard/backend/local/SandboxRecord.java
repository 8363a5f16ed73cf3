package dev.dockyard.backend.local;

import dev.dockyard.backend.ExecutorServer;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What the control plane keeps of a local sandbox, one properties file per sandbox in the node's
 * {@code records} directory (root's alone: a sandbox cannot forge the pid the control plane will
 * signal): its labels (those Docker would carry), its executor port, when it was created, and
 * the process running it, or none (created, stopped or exited).
 *
 * @param process the executor's process, null when none was started or it was stopped on purpose
 * @param frozen  paused (SIGSTOP) by the control plane
 * @param memoryMb the sandbox's memory: the executor JVM sizes itself for it as it would in a
 *                 container of that memory (0: the host's)
 * @param executorServer how its executor starts, every time it is started ({@link ExecutorServer}); null
 *                 on a record older than the choice
 */
public record SandboxRecord(String name, Map<String, String> labels, int port, Instant createdAt,
                            ProcessIdentity process, boolean frozen, int memoryMb, ExecutorServer executorServer) {

    private static final String NAME = "name";
    private static final String PORT = "port";
    private static final String CREATED = "created-at";
    private static final String PID = "pid";
    private static final String START_TIME = "start-time";
    private static final String FROZEN = "frozen";
    private static final String MEMORY = "memory-mb";
    private static final String EXECUTOR_SERVER = "executor-server";
    private static final String LABEL = "label.";

    public SandboxRecord {
        labels = Map.copyOf(labels);
    }

    /** A record that says nothing of how the executor starts (one older than the choice). */
    public SandboxRecord(String name, Map<String, String> labels, int port, Instant createdAt,
                         ProcessIdentity process, boolean frozen, int memoryMb) {
        this(name, labels, port, createdAt, process, frozen, memoryMb, null);
    }

    public SandboxRecord running(ProcessIdentity started, int newPort) {
        return new SandboxRecord(name, labels, newPort, createdAt, started, false, memoryMb, executorServer);
    }

    public SandboxRecord stopped() {
        return new SandboxRecord(name, labels, port, createdAt, null, false, memoryMb, executorServer);
    }

    public SandboxRecord frozen(boolean isFrozen) {
        return new SandboxRecord(name, labels, port, createdAt, process, isFrozen, memoryMb, executorServer);
    }

    public String format() {
        Properties p = new Properties();
        p.setProperty(NAME, name);
        p.setProperty(PORT, Integer.toString(port));
        p.setProperty(CREATED, createdAt.toString());
        if (process != null) {
            p.setProperty(PID, Long.toString(process.pid()));
            p.setProperty(START_TIME, Long.toString(process.startTime()));
        }
        p.setProperty(FROZEN, Boolean.toString(frozen));
        p.setProperty(MEMORY, Integer.toString(memoryMb));
        if (executorServer != null) {
            p.setProperty(EXECUTOR_SERVER, executorServer.apiName());
        }
        new TreeMap<>(labels).forEach((k, v) -> p.setProperty(LABEL + k, v));
        StringWriter out = new StringWriter();
        try {
            p.store(out, "Dockyard local sandbox");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** A record as {@link #format()} wrote it, or empty when the text is not one (a torn or foreign file). */
    public static Optional<SandboxRecord> parse(String text) {
        Properties p = new Properties();
        try (Reader in = new StringReader(text)) {
            p.load(in);
            String name = p.getProperty(NAME);
            if (name == null || name.isBlank()) {
                return Optional.empty();
            }
            Map<String, String> labels = new LinkedHashMap<>();
            for (String key : p.stringPropertyNames()) {
                if (key.startsWith(LABEL)) {
                    labels.put(key.substring(LABEL.length()), p.getProperty(key));
                }
            }
            String pid = p.getProperty(PID);
            ProcessIdentity process = pid == null ? null
                    : new ProcessIdentity(Long.parseLong(pid), Long.parseLong(p.getProperty(START_TIME)));
            return Optional.of(new SandboxRecord(name, labels, Integer.parseInt(p.getProperty(PORT)),
                    Instant.parse(p.getProperty(CREATED)), process, Boolean.parseBoolean(p.getProperty(FROZEN)),
                    Integer.parseInt(p.getProperty(MEMORY, "0")),
                    p.getProperty(EXECUTOR_SERVER) == null ? null
                            : ExecutorServer.named(p.getProperty(EXECUTOR_SERVER)).orElseThrow()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
