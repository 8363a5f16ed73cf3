package dev.dockyard.fakes;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Backend nodes made of {@link FakeBackend}s, the first one the default. */
public class FakeNodes implements BackendNodes {

    private final Map<String, FakeBackend> backends = new LinkedHashMap<>();
    private final Map<String, ExecutorServer> executorServers = new LinkedHashMap<>();

    public FakeNodes(String... names) {
        for (String name : names) {
            backends.put(name, new FakeBackend());
        }
    }

    public FakeBackend backend(String node) {
        return backends.get(node);
    }

    @Override
    public String defaultNode() {
        return backends.keySet().iterator().next();
    }

    @Override
    public List<String> names() {
        return List.copyOf(backends.keySet());
    }

    @Override
    public RuntimeBackend on(String node) {
        String name = node == null ? defaultNode() : node;
        FakeBackend backend = backends.get(name);
        if (backend == null) {
            throw new UnknownNodeException(name, names());
        }
        return backend;
    }

    /** The node's {@code executor-server} setting from now on (unset: the default). */
    public FakeNodes executorServer(String node, ExecutorServer server) {
        executorServers.put(node, server);
        return this;
    }

    @Override
    public ExecutorServer executorServer(String node) {
        on(node);
        return executorServers.getOrDefault(node == null ? defaultNode() : node, ExecutorServer.DEFAULT);
    }

    @Override
    public RuntimeImageBuilder images(String node) {
        throw new UnsupportedOperationException("no image builds in unit tests");
    }
}
