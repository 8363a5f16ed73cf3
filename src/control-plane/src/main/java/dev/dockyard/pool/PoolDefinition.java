package dev.dockyard.pool;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.secrets.SealedString;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a warm pool keeps ready. A request whose effective settings equal its {@link #shape()}
 * (same image, CPUs, memory, plugins and node, no extra dependencies, Dockyard's executor started
 * on the same {@link ExecutorServer}) is served from it. {@code source} says who declared it: {@code config} (MicroProfile Config, written
 * again at every start) or {@code api}.
 */
@Entity
@Table(name = "DY_POOL")
public class PoolDefinition {

    @Id
    @Column(length = 63)
    private String name;

    @Column(nullable = false, length = 500)
    private String image;

    private double cpus;

    @Column(name = "MEMORY_MB")
    private int memoryMb;

    /** Comma-separated, sorted; empty for none. */
    @Column(name = "PLUGINS", length = 500)
    private String plugins;

    @Column(name = "NODE", nullable = false, length = 63)
    private String node;

    @Column(name = "POOL_SIZE")
    private int size;

    @Column(name = "MAX_BOOTING")
    private int maxBooting;

    /** For a pool of another image's dormant server: its {@link PoolProgram} as JSON, sealed; null for executors. */
    @Column(name = "PROGRAM", length = 32000)
    @Convert(converter = SealedString.class)
    private String program;

    /**
     * How its members start the executor ({@link ExecutorServer}'s name), settled when it is declared:
     * its own choice, else its node's. Null for a pool of another image's program, and on rows older
     * than the column (see {@link #executorServer()}).
     */
    @Column(name = "EXECUTOR_SERVER", length = 16)
    private String executorServer;

    @Column(name = "SOURCE", length = 20)
    private String source;

    @Column(name = "UPDATED_AT", nullable = false)
    private Instant updatedAt;

    @Version
    private long version;

    protected PoolDefinition() {
        // JPA
    }

    public PoolDefinition(PoolSettings settings, String source, Instant now) {
        this.name = settings.name();
        redefine(settings, source, now);
    }

    public final void redefine(PoolSettings settings, String newSource, Instant now) {
        redefine(settings.image(), settings.cpus(), settings.memoryMb(), settings.plugins(), settings.node(),
                settings.size(), settings.maxBooting(), newSource, now);
        this.program = settings.program() == null ? null : settings.program().toJson();
        this.executorServer = settings.executorServer() == null ? null : settings.executorServer().apiName();
    }

    private void redefine(String newImage, double newCpus, int newMemoryMb, List<String> newPlugins,
                          String newNode, int newSize, int newMaxBooting, String newSource, Instant now) {
        this.image = newImage;
        this.cpus = newCpus;
        this.memoryMb = newMemoryMb;
        this.plugins = String.join(",", newPlugins.stream().sorted().distinct().toList());
        this.node = newNode;
        this.size = newSize;
        this.maxBooting = newMaxBooting;
        this.source = newSource;
        this.updatedAt = now;
    }

    /**
     * What a sandbox of this pool is, as one comparable string: members record the shape they were
     * booted with, and a member whose shape is no longer its pool's is drained.
     */
    public String shape() {
        return shape(image, cpus, memoryMb, plugins(), node, program().orElse(null), executorServer().orElse(null));
    }

    /**
     * The shape of a sandbox of Dockyard's executor ({@code program} null) started on
     * {@code executorServer}, or of another image's program (no executor server). The server is
     * part of it so that a claim never gets a member of the other server, and so that members
     * booted before pools had one (they ran Liberty) are drained as of another shape.
     */
    public static String shape(String image, double cpus, int memoryMb, List<String> plugins, String node,
                               PoolProgram program, ExecutorServer executorServer) {
        return image + "|" + String.format(Locale.ROOT, "%.3f", cpus) + "|" + memoryMb + "|"
                + String.join(",", plugins.stream().sorted().distinct().toList()) + "|" + node
                + (executorServer == null ? "" : "|executor:" + executorServer.apiName())
                + (program == null ? "" : "|program:" + program.shape());
    }

    /**
     * How its members start the executor; empty for a pool of another image's program. A pool
     * declared before pools had a server gets the default one: its old members are drained
     * (another shape) and its new ones boot as a request that names none starts on a node of
     * the default setting; a node set to Liberty needs the pool declared again.
     */
    public Optional<ExecutorServer> executorServer() {
        if (program != null) {
            return Optional.empty();
        }
        return Optional.of(executorServer == null ? ExecutorServer.DEFAULT
                : ExecutorServer.named(executorServer).orElseThrow());
    }

    public Optional<PoolProgram> program() {
        return Optional.ofNullable(program).map(PoolProgram::fromJson);
    }

    public String name() {
        return name;
    }

    public String image() {
        return image;
    }

    public double cpus() {
        return cpus;
    }

    public int memoryMb() {
        return memoryMb;
    }

    public List<String> plugins() {
        return plugins == null || plugins.isEmpty() ? List.of() : Arrays.asList(plugins.split(","));
    }

    public String node() {
        return node;
    }

    public int size() {
        return size;
    }

    public int maxBooting() {
        return maxBooting;
    }

    public String source() {
        return source;
    }

    public Instant updatedAt() {
        return updatedAt;
    }
}
