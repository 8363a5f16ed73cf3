package it.dev.dockyard.controlplane;

import dev.dockyard.backend.BackendNodes;
import dev.dockyard.backend.ManagedSandbox;
import dev.dockyard.backend.RuntimeBackend;
import dev.dockyard.backend.RuntimeImageBuilder;
import dev.dockyard.backend.SandboxSpec;
import dev.dockyard.backend.SandboxState;
import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One backend node that holds no sandboxes and remembers, for every call made to it, whether a
 * transaction was active: backend calls must never run inside one.
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 100)
@ApplicationScoped
public class TransactionRecordingNodes implements BackendNodes {

    /** A backend call and the JTA status it ran under (jakarta.transaction.Status). */
    public record Call(String what, int transactionStatus) {
        public boolean inTransaction() {
            return transactionStatus != Status.STATUS_NO_TRANSACTION;
        }
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();

    @Resource
    TransactionSynchronizationRegistry transactions;

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    private void called(String what) {
        calls.add(new Call(what, transactions.getTransactionStatus()));
    }

    @Override
    public String defaultNode() {
        return "local";
    }

    @Override
    public List<String> names() {
        return List.of("local");
    }

    @Override
    public RuntimeBackend on(String node) {
        return backend;
    }

    @Override
    public RuntimeImageBuilder images(String node) {
        throw new UnsupportedOperationException("no image builds here");
    }

    private final RuntimeBackend backend = new RuntimeBackend() {
        @Override
        public String name() {
            return "recording";
        }

        @Override
        public String create(SandboxSpec spec) {
            called("create");
            return "none";
        }

        @Override
        public URI start(String sandboxName, int executorPort) {
            called("start");
            return URI.create("http://127.0.0.1:9");
        }

        @Override
        public URI revive(String sandboxName, String sessionKey, String user, int executorPort) {
            called("revive");
            return URI.create("http://127.0.0.1:9");
        }

        @Override
        public URI endpoint(String sandboxName, int executorPort) {
            called("endpoint");
            return URI.create("http://127.0.0.1:9");
        }

        @Override
        public void settle(String sandboxName, double cpus) {
            called("settle");
        }

        @Override
        public SandboxState inspect(String sandboxName) {
            called("inspect");
            return SandboxState.missing();
        }

        @Override
        public void pause(String sandboxName) {
            called("pause");
        }

        @Override
        public void unpause(String sandboxName) {
            called("unpause");
        }

        @Override
        public void stop(String sandboxName) {
            called("stop");
        }

        @Override
        public List<ManagedSandbox> listManaged(String controlPlane) {
            called("list");
            return List.of();
        }

        @Override
        public InputStream archive(String sandboxName, String path) {
            called("archive");
            return new ByteArrayInputStream(new byte[0]);
        }

        @Override
        public void restore(String sandboxName, String directory, InputStream tar) {
            called("restore");
        }

        @Override
        public void rewriteEnvironment(String sandboxName, Map<String, String> environment, String user) {
            called("environment");
        }

        @Override
        public void remove(String sandboxName) {
            called("remove");
        }
    };
}
