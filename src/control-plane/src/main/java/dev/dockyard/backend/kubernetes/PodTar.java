package dev.dockyard.backend.kubernetes;

import dev.dockyard.backend.BackendException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Workspaces in and out of a pod as tar streams, through {@code tar} run by the pod's exec
 * subresource: the same streams Docker's archive endpoints give, so a workspace moves between
 * node types as it is.
 */
final class PodTar {

    private static final long RESTORE_MINUTES = 30;
    /** tar's record (20 blocks of 512): what it reads at a time from a pipe. */
    static final int RECORD = 20 * 512;

    private PodTar() {
    }

    /** {@code path} as a tar stream, its last name component on top; closing the stream ends the exec. */
    static InputStream archive(ContainerResource container, String path) {
        String clean = path.replaceAll("/+$", "");
        int slash = clean.lastIndexOf('/');
        String parent = slash <= 0 ? "/" : clean.substring(0, slash);
        String name = clean.substring(slash + 1);
        ExecWatch exec;
        try {
            exec = container.redirectingOutput().exec("tar", "-c", "-f", "-", "-C", parent, name);
        } catch (KubernetesClientException e) {
            throw new BackendException("Kubernetes could not archive " + path + ": " + KubernetesBackend.describe(e), e);
        }
        return new FilterInputStream(exec.getOutput()) {
            @Override
            public void close() throws IOException {
                try {
                    super.close();
                } finally {
                    exec.close();
                }
            }
        };
    }

    /**
     * Unpacks {@code tar} into {@code directory}; fails with tar's own error output. An exec that
     * cannot be opened is tried once more (nothing of the archive was read yet). tar may end on the
     * archive's end marker while the padding after it is still being sent, and the pod's side then
     * closes the stream: a failed send is judged by tar's exit status, which is 0 only when tar read
     * the whole archive.
     */
    static void restore(ContainerResource container, String directory, InputStream tar) {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        ExecWatch opened;
        try {
            opened = open(container, directory, errors);
        } catch (KubernetesClientException first) {
            try {
                Thread.sleep(1000);
                opened = open(container, directory, errors);
            } catch (KubernetesClientException e) {
                e.addSuppressed(first);
                throw new BackendException("Kubernetes could not unpack the archive into " + directory
                        + ": the pod's exec did not open: " + KubernetesBackend.describe(e), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendException("interrupted while unpacking an archive");
            }
        }
        try (ExecWatch exec = opened) {
            RuntimeException sending = null;
            try (OutputStream in = exec.getInput()) {
                long sent = tar.transferTo(in);
                // fabric8 speaks v4.channel.k8s.io, which cannot close the command's stdin: tar must end
                // on the archive's own end marker, so the last record is filled up (zeros) for it to read
                in.write(new byte[(int) ((RECORD - sent % RECORD) % RECORD)]);
                in.flush();
            } catch (IOException | KubernetesClientException e) {
                sending = new BackendException("sending the archive failed: " + KubernetesBackend.describe(e), e);
            }
            Integer code;
            try {
                code = exec.exitCode().get(sending == null ? RESTORE_MINUTES * 60 : 10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                if (sending != null) {
                    throw sending;
                }
                throw e;
            }
            if (code != null && code != 0) {
                throw new BackendException("tar in the pod failed (exit " + code + "): "
                        + errors.toString(StandardCharsets.UTF_8).strip());
            }
            if (code == null && sending != null) {
                throw sending;
            }
        } catch (BackendException e) {
            throw new BackendException("Kubernetes could not unpack the archive into " + directory + ": "
                    + e.getMessage(), e);
        } catch (ExecutionException | TimeoutException | KubernetesClientException e) {
            throw new BackendException("Kubernetes could not unpack the archive into " + directory + ": "
                    + KubernetesBackend.describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while unpacking an archive");
        }
    }

    private static ExecWatch open(ContainerResource container, String directory, ByteArrayOutputStream errors) {
        // -m: the mount point's own times are the cluster's, not ours to set
        return container.redirectingInput().writingError(errors)
                .exec("tar", "-x", "-m", "--no-overwrite-dir", "-b", "20", "-f", "-", "-C", directory);
    }
}
