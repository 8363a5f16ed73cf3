package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.InternalServerErrorException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import dev.dockyard.backend.BackendException;
import dev.dockyard.backend.SandboxBusyException;
import dev.dockyard.backend.SandboxNotRunningException;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.SandboxState;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A created container's life: started (and its executor's published port found), settled from
 * its boot CPUs to its steady ones, frozen and thawed (a pause is the engine's cgroup freeze,
 * tried again when the kernel could not freeze in time), and stopped. Each step is idempotent:
 * starting a running container, pausing a paused one or stopping a stopped one is what was asked.
 */
final class ContainerLifecycle {

    private static final Logger LOG = Logger.getLogger(ContainerLifecycle.class.getName());

    /** How long a stopped sandbox's executor may take to shut down before it is killed (its files are kept either way). */
    static final int STOP_SECONDS = 2;
    /** How often a start is tried when the host port picked for it turns out to be taken. */
    static final int PORT_TRIES = 3;
    /** How often a pause is tried when the kernel could not freeze the container's processes in time. */
    static final int FREEZE_TRIES = 5;
    /** The wait before the n-th try again is n times this (0.5 + 1 + 1.5 + 2 s at most in all). */
    static final long FREEZE_BACKOFF_MS = 500;

    /** How long the engine's word that a sandbox publishes an endpoint is taken, and for how many. */
    private static final long PUBLISHED_FOR_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final int MAX_PUBLISHED = 10_000;

    private final DockerClient docker;
    private final ContainerViews views;
    private final ContainerReplacement replacement;
    private final Map<String, Long> published = new ConcurrentHashMap<>();

    ContainerLifecycle(DockerClient docker, ContainerViews views) {
        this.docker = docker;
        this.views = views;
        this.replacement = new ContainerReplacement(docker);
    }

    /** Starts the container and returns where its executor answers; a container that dies at once says why. */
    URI start(String sandboxName, int executorPort) {
        try {
            startReplacingAStaleOne(sandboxName);
        } catch (NotModifiedException e) {
            // already running: starting is idempotent
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' disappeared before it started", e);
        } catch (DockerException e) {
            String why = DockerErrors.describe(e);
            if (why.contains("error setting rlimit")) {
                why += " (the engine's own limits are lower than the sandbox's: dockyard.sandbox.nofile must be at "
                        + "most the engine's open-file limit)";
            }
            throw new BackendException("Docker could not start the container: " + why, e);
        }
        InspectContainerResponse inspect = docker.inspectContainerCmd(sandboxName).exec();
        if (!Boolean.TRUE.equals(inspect.getState().getRunning())) {
            // it died at once: say how, with its own last words
            SandboxState state = views.state(sandboxName);
            throw new BackendException("the container exited with code " + state.exitCode() + " right after it started"
                    + (state.logTail().isBlank() ? "" : "; its last output:\n" + state.logTail()));
        }
        return publishedEndpoint(inspect, executorPort);
    }

    /**
     * Starts the container; one its engine can no longer start (a task left over by a start that
     * containerd's going away cut off) is replaced by a copy first ({@link ContainerReplacement}).
     */
    private void startReplacingAStaleOne(String sandboxName) {
        try {
            startTakingAFreePort(sandboxName);
        } catch (InternalServerErrorException e) {
            if (!ContainerReplacement.staleTask(DockerErrors.describe(e))) {
                throw e;
            }
            LOG.info("The engine refused to start " + sandboxName + " (" + DockerErrors.describe(e)
                    + "); replacing its container");
            replacement.replace(sandboxName);
            startTakingAFreePort(sandboxName);
        }
    }

    /**
     * Starts the container; when the host port the engine picked for it is taken by someone the
     * engine does not know of (a client socket's ephemeral port, another engine on the same host),
     * "address already in use", the start is tried again: the engine picks the next port. Measured
     * in the soak of 2026-11-30 21:22 with two engines on one host: 5 provisions ended in ERROR so.
     */
    private void startTakingAFreePort(String sandboxName) {
        for (int tried = 1; ; tried++) {
            try {
                docker.startContainerCmd(sandboxName).exec();
                return;
            } catch (DockerException e) {
                if (tried >= PORT_TRIES || !DockerErrors.describe(e).contains("address already in use")) {
                    throw e;
                }
                LOG.info("The host port picked for " + sandboxName + " was taken (try " + tried + " of " + PORT_TRIES
                        + "); starting it again");
            }
        }
    }

    /** Where the running container's executor answers: the address and host port Docker published for it. */
    URI endpoint(String sandboxName, int executorPort) {
        try {
            return publishedEndpoint(docker.inspectContainerCmd(sandboxName).exec(), executorPort);
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not inspect the container: " + DockerErrors.describe(e), e);
        }
    }

    private static URI publishedEndpoint(InspectContainerResponse inspect, int executorPort) {
        // a container that stopped has no network settings' ports to read: no port, not a NullPointerException
        Ports.Binding[] bindings = inspect.getNetworkSettings() == null || inspect.getNetworkSettings().getPorts() == null
                ? null : inspect.getNetworkSettings().getPorts().getBindings().get(ExposedPort.tcp(executorPort));
        if (bindings == null || bindings.length == 0 || bindings[0].getHostPortSpec() == null) {
            throw new BackendException("Docker published no host port for the executor (container state: "
                    + inspect.getState().getStatus() + ")");
        }
        String address = SandboxAddresses.host(bindings[0].getHostIp());
        return URI.create("http://" + address + ":" + bindings[0].getHostPortSpec());
    }

    /**
     * Whether {@code endpoint} is where the running container publishes a port now. A recorded
     * endpoint goes stale when its container stops (an engine restart): its port is then free for
     * anyone, and the session key must not follow it there (the soak, 2026-11-30 21:22: keys sent
     * to another sandbox's executor). False too for a container that is gone, stopped or frozen.
     */
    boolean publishes(String sandboxName, URI endpoint) {
        // every action asks: a yes holds for a moment, far shorter than a stopped sandbox's port
        // takes to go to another one (its engine restarts, then a sandbox is started again)
        String asked = sandboxName + " " + endpoint;
        Long confirmed = published.get(asked);
        if (confirmed != null && System.nanoTime() - confirmed < PUBLISHED_FOR_NANOS) {
            return true;
        }
        // an engine that does not answer cannot say, and the key is not sent on a guess: any process
        // of the host may bind a loopback address's free port once a sandbox stopped
        boolean publishes = publishedNow(sandboxName, endpoint);
        if (publishes) {
            if (published.size() > MAX_PUBLISHED) {
                published.clear();
            }
            published.put(asked, System.nanoTime());
        } else {
            published.remove(asked);
        }
        return publishes;
    }

    private boolean publishedNow(String sandboxName, URI endpoint) {
        InspectContainerResponse inspect;
        try {
            inspect = docker.inspectContainerCmd(sandboxName).exec();
        } catch (NotFoundException e) {
            return false;
        } catch (DockerException e) {
            throw new BackendException("Docker could not inspect the container: " + DockerErrors.describe(e), e);
        }
        if (!Boolean.TRUE.equals(inspect.getState().getRunning()) || Boolean.TRUE.equals(inspect.getState().getPaused())
                || inspect.getNetworkSettings() == null || inspect.getNetworkSettings().getPorts() == null) {
            // a frozen container's port takes connections that nothing answers: a call sent there
            // would wait out its whole timeout (the soak's node cut, 2026-12-01: an action, 150 s)
            return false;
        }
        for (Ports.Binding[] bindings : inspect.getNetworkSettings().getPorts().getBindings().values()) {
            for (Ports.Binding binding : bindings == null ? new Ports.Binding[0] : bindings) {
                if (SandboxAddresses.host(binding.getHostIp()).equals(endpoint.getHost())
                        && String.valueOf(endpoint.getPort()).equals(binding.getHostPortSpec())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Gives a booted sandbox its steady CPU limit and the normal CPU weight. */
    void settle(String sandboxName, double cpus) {
        try {
            docker.updateContainerCmd(sandboxName).withNanoCPUs(SandboxHardening.nanoCpus(cpus))
                    .withCpuShares(SandboxHardening.NORMAL_CPU_SHARES).exec();
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' disappeared", e);
        } catch (DockerException e) {
            if (SandboxConfinement.DOCKER_RUNTIMES.get(SandboxIsolation.GVISOR).equals(views.runtimeOf(sandboxName))) {
                // gVisor has no live update: its sandboxes were given their steady limits at create
                return;
            }
            throw new BackendException("Docker could not apply the CPU limit: " + DockerErrors.describe(e), e);
        }
    }

    void pause(String sandboxName) {
        try {
            freezing(() -> docker.pauseContainerCmd(sandboxName).exec(), FREEZE_TRIES, FREEZE_BACKOFF_MS);
        } catch (ConflictException | NotModifiedException e) {
            // the engine's 409 is "already paused" or "not running": paused is what was asked, a
            // stopped container cannot be frozen (and is no paused runtime)
            if (!frozen(sandboxName)) {
                throw new SandboxNotRunningException("container '" + sandboxName + "' is not running, so it cannot be "
                        + "frozen: " + DockerErrors.describe(e), e);
            }
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (InternalServerErrorException e) {
            if (frozenAlready(DockerErrors.describe(e))) {
                return;
            }
            if (stoppedBelow(DockerErrors.describe(e)) || stoppedNow(sandboxName)) {
                throw new SandboxNotRunningException("container '" + sandboxName + "' is not running, so it cannot be "
                        + "frozen: " + DockerErrors.describe(e), e);
            }
            if (DockerErrors.describe(e).contains("unable to freeze")) {
                throw new SandboxBusyException("the container's processes could not all be frozen in " + FREEZE_TRIES
                        + " tries (they keep forking, or the machine is loaded); it runs on, unchanged", e);
            }
            throw new BackendException("Docker could not pause the container: " + DockerErrors.describe(e), e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not pause the container: " + DockerErrors.describe(e), e);
        }
    }

    /** Whether the container is frozen now (a 409's meaning); an error asking is the backend's. */
    private boolean frozen(String sandboxName) {
        try {
            return Boolean.TRUE.equals(state(sandboxName).getPaused());
        } catch (DockerException e) {
            throw new BackendException("Docker could not inspect the container: " + DockerErrors.describe(e), e);
        }
    }

    /**
     * The container's state as the engine records it now. A container that is gone is the
     * backend's error; any other failure to ask is left to the caller, which knows whether its own
     * failure or the question's stands.
     */
    private InspectContainerResponse.ContainerState state(String sandboxName) {
        try {
            return docker.inspectContainerCmd(sandboxName).exec().getState();
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        }
    }

    /**
     * Runs {@code pause}, again when the engine answers that it was "unable to freeze": runc gives a
     * freeze a short time and thaws the container when its processes do not all stop within it
     * (processes in I/O, a machine under load), which a moment later usually succeeds. Any other
     * failure, or the last try's, is the caller's.
     */
    static void freezing(Runnable pause, int tries, long backoffMs) {
        for (int attempt = 1; ; attempt++) {
            try {
                pause.run();
                return;
            } catch (InternalServerErrorException e) {
                if (attempt >= tries || !DockerErrors.describe(e).contains("unable to freeze")) {
                    throw e;
                }
                LOG.info("The container could not be frozen in time (try " + attempt + " of " + tries
                        + "); trying again");
                try {
                    Thread.sleep(backoffMs * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    void unpause(String sandboxName) {
        try {
            docker.unpauseContainerCmd(sandboxName).exec();
        } catch (ConflictException | NotModifiedException e) {
            // not paused
        } catch (InternalServerErrorException e) {
            String said = DockerErrors.describe(e);
            if (stoppedBelow(said) || stoppedNow(sandboxName)) {
                throw new SandboxNotRunningException("container '" + sandboxName + "' is not running, so it cannot be "
                        + "thawed: " + said, e);
            }
            if (!runningAlready(said)) {
                throw new BackendException("Docker could not resume the container: " + said, e);
            }
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not resume the container: " + DockerErrors.describe(e), e);
        }
    }

    /**
     * Whether an unpause's 500 says the container runs already, which is what was asked: Docker's
     * "… is not paused", or, while the engine restarts and its record still says paused of a
     * container the runtime below already runs, containerd's "cannot resume a running container".
     */
    static boolean runningAlready(String dockerSaid) {
        // containerd's shim says "cannot resume a running process" (its running state's Resume)
        return dockerSaid.contains("is not paused") || dockerSaid.contains("cannot resume a running");
    }

    /**
     * Whether a pause's 500 says the container is frozen already, which is what was asked:
     * containerd's "cannot pause a paused container", while the engine's record still said running.
     */
    static boolean frozenAlready(String dockerSaid) {
        return dockerSaid.contains("cannot pause a paused container");
    }

    /**
     * Whether the container is neither running nor frozen now, asked after a pause or unpause the
     * engine failed with words of its own (containerd going away while the engine stops, the soak's
     * engine restarts, 2026-11-30): a container that stopped meanwhile is being recovered, not a
     * failure of the call. An engine that does not answer the question says so itself.
     */
    private boolean stoppedNow(String sandboxName) {
        try {
            InspectContainerResponse.ContainerState state = state(sandboxName);
            return !Boolean.TRUE.equals(state.getRunning()) && !Boolean.TRUE.equals(state.getPaused());
        } catch (DockerException e) {
            // the engine cannot say: the call's own failure stands
            return false;
        }
    }

    /**
     * Whether a pause's or unpause's 500 says the container has stopped under the engine's record:
     * containerd's "cannot pause a stopped container" and "cannot resume a stopped container",
     * Docker's answers while the engine stops (the soak's engine restarts, 2026-11-30), where the
     * record still said running or paused. Such a sandbox is being recovered, not failing.
     */
    static boolean stoppedBelow(String dockerSaid) {
        return dockerSaid.contains("cannot pause a stopped container")
                || dockerSaid.contains("cannot resume a stopped container")
                || dockerSaid.contains("task in created state");
    }

    void stop(String sandboxName) {
        // a frozen container cannot take the stop signal: thawed for the last second of its life
        try {
            unpause(sandboxName);
        } catch (SandboxNotRunningException e) {
            // stopped already, below the engine's record: what a stop asks
        }
        try {
            docker.stopContainerCmd(sandboxName).withTimeout(STOP_SECONDS).exec();
        } catch (NotModifiedException e) {
            // stopped already
        } catch (NotFoundException e) {
            throw new BackendException("container '" + sandboxName + "' is gone", e);
        } catch (DockerException e) {
            throw new BackendException("Docker could not stop the container: " + DockerErrors.describe(e), e);
        }
    }
}
