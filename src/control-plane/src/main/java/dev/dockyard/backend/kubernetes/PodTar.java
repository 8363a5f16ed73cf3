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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * Workspaces in and out of a pod as tar streams, through {@code tar} run by the pod's exec
 * subresource: the same streams Docker's archive endpoints give, so a workspace moves between
 * node types as it is.
 */
final class PodTar {

    private static final Logger LOG = Logger.getLogger(PodTar.class.getName());
    private static final long RESTORE_MINUTES = 30;
    /** Sends of one archive, when the exec's channel breaks before tar has ended. */
    static final int TRIES = 3;
    /** tar's record (20 blocks of 512): what it reads at a time from a pipe. */
    static final int RECORD = 20 * 512;
    /** How long the pod may take none of the archive before the unpack fails. */
    static final Duration STALL = Duration.ofMinutes(2);

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
     * Unpacks {@code tar} into {@code directory}; fails with tar's own error output. The archive is
     * spooled to a temporary file first, so that an exec whose stream breaks before tar has ended
     * (no exit status came back: the channel, not tar, failed) is sent again, up to {@link #TRIES}
     * times; unpacking again over a partial unpack gives the same files. An exec that cannot be
     * opened is tried again likewise. tar may end on the archive's end marker while the padding after
     * it is still being sent, or fail early: the sending stops when tar's exit status comes back, and
     * that status judges the unpack. A pod that reads nothing of the archive for
     * {@link #STALL} fails it.
     */
    static void restore(ContainerResource container, String directory, InputStream tar) {
        restore(container, directory, tar, STALL);
    }

    static void restore(ContainerResource container, String directory, InputStream tar, Duration stall) {
        Path spool = null;
        try {
            spool = Files.createTempFile("dockyard-pod-restore-", ".tar");
            try (OutputStream out = Files.newOutputStream(spool)) {
                tar.transferTo(out);
            }
            BackendException last = null;
            for (int attempt = 1; attempt <= TRIES; attempt++) {
                try (InputStream archive = Files.newInputStream(spool)) {
                    sendOnce(container, directory, archive, stall);
                    return;
                } catch (ChannelBroke e) {
                    last = e;
                    LOG.warning("Unpacking into " + directory + " of a pod, try " + attempt + " of " + TRIES + ": "
                            + e.getMessage());
                }
                if (attempt < TRIES) {
                    Thread.sleep(1000L * attempt);
                }
            }
            throw new BackendException("Kubernetes could not unpack the archive into " + directory + " in " + TRIES
                    + " tries: " + last.getMessage(), last);
        } catch (IOException e) {
            throw new BackendException("Kubernetes could not unpack the archive into " + directory + ": "
                    + KubernetesBackend.describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while unpacking an archive");
        } finally {
            if (spool != null) {
                try {
                    Files.deleteIfExists(spool);
                } catch (IOException e) {
                    // a temporary file: the JVM's temporary directory is the operator's to clean
                }
            }
        }
    }

    /** The exec's channel failed before tar's status came back: worth sending again. */
    private static final class ChannelBroke extends BackendException {
        ChannelBroke(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** One exec of tar fed with {@code archive}; throws when tar or the exec's channel failed. */
    private static void sendOnce(ContainerResource container, String directory, InputStream archive, Duration stall)
            throws InterruptedException {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        ExecWatch exec;
        try {
            exec = open(container, directory, errors);
        } catch (KubernetesClientException e) {
            throw new ChannelBroke("the pod's exec did not open: " + KubernetesBackend.describe(e), e);
        }
        try (exec) {
            ChannelBroke sending = null;
            StdinGuard guard = new StdinGuard(exec.getInput(), exec.exitCode(), stall);
            try (OutputStream in = guard) {
                long sent = archive.transferTo(in);
                // fabric8 speaks v4.channel.k8s.io, which cannot close the command's stdin: tar must end
                // on the archive's own end marker, so the last record is filled up (zeros) for it to read
                in.write(new byte[(int) ((RECORD - sent % RECORD) % RECORD)]);
                in.flush();
            } catch (IOException | KubernetesClientException e) {
                if (guard.stalled()) {
                    throw new BackendException("Kubernetes could not unpack the archive into " + directory
                            + ": the pod took none of it for " + stall.toSeconds() + " s", e);
                }
                sending = new ChannelBroke("sending the archive failed: " + KubernetesBackend.describe(e), e);
            } finally {
                guard.finish();
            }
            Integer code;
            try {
                code = exec.exitCode().get(sending == null ? RESTORE_MINUTES * 60 : 10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                if (sending != null) {
                    throw sending;
                }
                if (e instanceof TimeoutException) {
                    // tar itself did not end within its time: another send would wait as long again
                    throw new BackendException("Kubernetes could not unpack the archive into " + directory
                            + ": tar in the pod did not end within " + RESTORE_MINUTES + " minutes", e);
                }
                throw new ChannelBroke("no exit status from tar: " + KubernetesBackend.describe(e), e);
            }
            if (code == null) {
                // v4.channel.k8s.io ends every exec with a status, success included: none came, so the
                // stream closed under tar, whatever it unpacked so far
                throw sending != null ? sending : new ChannelBroke("the exec closed without tar's exit status", null);
            }
            if (code != 0) {
                throw new BackendException("Kubernetes could not unpack the archive into " + directory
                        + ": tar in the pod failed (exit " + code + "): " + errors.toString(StandardCharsets.UTF_8).strip());
            }
        }
    }

    private static ExecWatch open(ContainerResource container, String directory, ByteArrayOutputStream errors) {
        // -m: the mount point's own times are the cluster's, not ours to set
        return container.redirectingInput().writingError(errors)
                .exec("tar", "-x", "-m", "--no-overwrite-dir", "-b", "20", "-f", "-", "-C", directory);
    }
}
